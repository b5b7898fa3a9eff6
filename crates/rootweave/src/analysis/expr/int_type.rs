//! C++'s integer types as an expression's values have them: a rank (`char` to `long long`)
//! and a signedness, the promotions and usual arithmetic conversions between them, values
//! wrapped to their type's width, and the names ROOT gives them. Every integer is held in
//! an `i64`: a signed value as itself, an unsigned one of fewer than 64 bits as its
//! (non-negative) value, a 64-bit unsigned one as its bits.

/// The rank of a C++ integer type (`long` and `long long` are both 64 bits here, as on
/// Linux, but differ in rank and name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    /// `char` (`Char_t`): 8 bits, signed here as on x86-64 Linux, but a type of its own.
    Char,
    /// `signed char` (`std::int8_t`): 8 bits.
    SignedChar,
    /// `short`: 16 bits.
    Short,
    /// `int`: 32 bits.
    Int,
    /// `long`: 64 bits.
    Long,
    /// `long long` (`Long64_t`): 64 bits.
    LongLong,
}

/// A C++ integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntTy {
    /// Its rank.
    pub rank: Rank,
    /// Whether it is unsigned.
    pub unsigned: bool,
}

impl IntTy {
    /// `int`: integer literals, promoted small integers, `RVec`'s comparisons.
    pub const INT: IntTy = IntTy::new(Rank::Int, false);
    /// `unsigned int` (`UInt_t`).
    pub const UINT: IntTy = IntTy::new(Rank::Int, true);
    /// `unsigned long` (`std::size_t`: sizes and indices).
    pub const SIZE: IntTy = IntTy::new(Rank::Long, true);
    /// `long long` (`Long64_t`).
    pub const LONG64: IntTy = IntTy::new(Rank::LongLong, false);
    /// `unsigned long long` (`ULong64_t`).
    pub const ULONG64: IntTy = IntTy::new(Rank::LongLong, true);

    /// The type of this rank and signedness.
    pub const fn new(rank: Rank, unsigned: bool) -> IntTy {
        IntTy { rank, unsigned }
    }

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self.rank {
            Rank::Char | Rank::SignedChar => 8,
            Rank::Short => 16,
            Rank::Int => 32,
            Rank::Long | Rank::LongLong => 64,
        }
    }

    /// The type an operand of this type has in arithmetic: types narrower than `int`
    /// become `int` (which holds all their values).
    pub fn promoted(self) -> IntTy {
        if self.rank < Rank::Int {
            IntTy::INT
        } else {
            self
        }
    }

    /// The type both integer operands of an arithmetic operator or a comparison are
    /// converted to (C++'s usual arithmetic conversions).
    pub fn common(a: IntTy, b: IntTy) -> IntTy {
        let (a, b) = (a.promoted(), b.promoted());
        if a.unsigned == b.unsigned {
            return if a.rank >= b.rank { a } else { b };
        }
        let (u, s) = if a.unsigned { (a, b) } else { (b, a) };
        if u.rank >= s.rank {
            u
        } else if s.bits() > u.bits() {
            s
        } else {
            IntTy::new(s.rank, true)
        }
    }

    /// `x` (a value of any integer type, as held) converted to this type: cut to its width
    /// and extended by its signedness, as C++ converts integers.
    #[inline]
    pub fn wrap(self, x: i64) -> i64 {
        match (self.bits(), self.unsigned) {
            (8, false) => x as i8 as i64,
            (8, true) => x as u8 as i64,
            (16, false) => x as i16 as i64,
            (16, true) => x as u16 as i64,
            (32, false) => x as i32 as i64,
            (32, true) => x as u32 as i64,
            _ => x,
        }
    }

    /// Whether every value of this type is held as the same `i64` once converted to `to`
    /// (a conversion that changes nothing: no copy needed).
    #[inline]
    pub fn held_alike_in(self, to: IntTy) -> bool {
        if self.bits() == to.bits() {
            self.unsigned == to.unsigned || self.bits() == 64
        } else {
            self.bits() < to.bits() && (self.unsigned || !to.unsigned)
        }
    }

    /// Whether values of this type are held as the bits of a `u64` (compared, divided and
    /// converted to floating point as unsigned).
    #[inline]
    pub fn is_u64(self) -> bool {
        self.unsigned && self.bits() == 64
    }

    /// A held value as a `double`.
    #[inline]
    pub fn to_f64(self, x: i64) -> f64 {
        if self.is_u64() {
            x as u64 as f64
        } else {
            x as f64
        }
    }

    /// A held value as a `float` (rounded once, as C++ converts).
    #[inline]
    pub fn to_f32(self, x: i64) -> f32 {
        if self.is_u64() {
            x as u64 as f32
        } else {
            x as f32
        }
    }

    /// The type of a read column's integers of `bits` bits (64 bits as a TTree's
    /// `Long64_t` / `ULong64_t`).
    pub fn of_width(bits: u32, unsigned: bool) -> IntTy {
        let rank = match bits {
            8 => Rank::Char,
            16 => Rank::Short,
            32 => Rank::Int,
            _ => Rank::LongLong,
        };
        IntTy::new(rank, unsigned)
    }

    /// The name ROOT gives the type (`TypeID2TypeName`'s spelling: `unsigned int`,
    /// `Long64_t`, `ULong64_t`, `unsigned long`).
    pub fn name(self) -> &'static str {
        match (self.rank, self.unsigned) {
            (Rank::Char, false) => "char",
            (Rank::SignedChar, false) => "signed char",
            (Rank::Char | Rank::SignedChar, true) => "unsigned char",
            (Rank::Short, false) => "short",
            (Rank::Short, true) => "unsigned short",
            (Rank::Int, false) => "int",
            (Rank::Int, true) => "unsigned int",
            (Rank::Long, false) => "long",
            (Rank::Long, true) => "unsigned long",
            (Rank::LongLong, false) => "Long64_t",
            (Rank::LongLong, true) => "ULong64_t",
        }
    }

    /// The type of an integer literal of value `value` (its digits as an unsigned number)
    /// with suffix `suffix` (`u`, `l`, `ul`, `ll`, `ull` in any case and order), decimal or
    /// not: the first type of C++'s list for it that holds the value; `None` if none does.
    pub fn of_literal(value: u64, suffix: &str, decimal: bool) -> Option<IntTy> {
        let s = suffix.to_ascii_lowercase();
        let unsigned = s.contains('u');
        let longs = s.matches('l').count();
        let ranks: &[Rank] = match longs {
            0 => &[Rank::Int, Rank::Long, Rank::LongLong],
            1 => &[Rank::Long, Rank::LongLong],
            _ => &[Rank::LongLong],
        };
        let fits = |t: IntTy| match (t.bits(), t.unsigned) {
            (32, false) => value <= i32::MAX as u64,
            (32, true) => value <= u32::MAX as u64,
            (_, false) => value <= i64::MAX as u64,
            _ => true,
        };
        ranks.iter().find_map(|&rank| {
            let signed = IntTy::new(rank, false);
            let unsig = IntTy::new(rank, true);
            if unsigned {
                Some(unsig).filter(|&t| fits(t))
            } else if fits(signed) {
                Some(signed)
            } else if !decimal && fits(unsig) {
                Some(unsig)
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U8: IntTy = IntTy::new(Rank::Char, true);
    const I16: IntTy = IntTy::new(Rank::Short, false);
    const LONG: IntTy = IntTy::new(Rank::Long, false);

    #[test]
    fn conversions_are_the_ones_clang_gives() {
        // Each pair as ROOT 6.40's jitted `Define` types it (`GetColumnType`).
        let cases = [
            (U8, U8, IntTy::INT),
            (U8, I16, IntTy::INT),
            (IntTy::UINT, IntTy::INT, IntTy::UINT),
            (IntTy::UINT, IntTy::LONG64, IntTy::LONG64),
            (IntTy::LONG64, IntTy::UINT, IntTy::LONG64),
            (IntTy::ULONG64, IntTy::INT, IntTy::ULONG64),
            (IntTy::SIZE, IntTy::INT, IntTy::SIZE),
            (IntTy::SIZE, IntTy::LONG64, IntTy::ULONG64),
            (LONG, IntTy::LONG64, IntTy::LONG64),
        ];
        for (a, b, want) in cases {
            assert_eq!(IntTy::common(a, b), want, "{a:?} {b:?}");
            assert_eq!(IntTy::common(b, a), want, "{b:?} {a:?}");
        }
    }

    #[test]
    fn values_wrap_to_their_width() {
        assert_eq!(IntTy::UINT.wrap(-1), 4_294_967_295);
        assert_eq!(U8.wrap(300), 44);
        assert_eq!(I16.wrap(40_000), -25_536);
        assert_eq!(IntTy::ULONG64.to_f64(-1), 18_446_744_073_709_551_615.0);
        assert_eq!(
            IntTy::INT.wrap(i64::from(i32::MAX) + 1),
            i64::from(i32::MIN)
        );
    }

    #[test]
    fn literals_take_the_first_type_that_holds_them() {
        let t = |v: u64, s: &str, d: bool| IntTy::of_literal(v, s, d).map(IntTy::name);
        assert_eq!(t(3, "", true), Some("int"));
        assert_eq!(t(3, "u", true), Some("unsigned int"));
        assert_eq!(t(3, "l", true), Some("long"));
        assert_eq!(t(3, "UL", true), Some("unsigned long"));
        assert_eq!(t(3, "ll", true), Some("Long64_t"));
        assert_eq!(t(3, "ull", true), Some("ULong64_t"));
        assert_eq!(t(3_000_000_000, "", true), Some("long"));
        assert_eq!(t(0xFFFF_FFFF, "", false), Some("unsigned int"));
        assert_eq!(t(u64::MAX, "", true), None);
        assert_eq!(t(u64::MAX, "u", true), Some("unsigned long"));
    }
}
