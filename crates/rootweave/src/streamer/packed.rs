//! How `Double32_t` and `Float16_t` values are stored: as floats, truncated floats or
//! integers scaled into a range, as the member's title (`[low, high, bits]`) says.

/// How a `Double32_t` or `Float16_t` is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Packed {
    /// As a `float` (Double32 without a range).
    AsFloat,
    /// Exponent byte and `bits`-bit mantissa (3 bytes): no range, or a `[0,0,bits]` range.
    Truncated {
        /// Mantissa bits.
        bits: u32,
    },
    /// An unsigned `bits`-bit integer scaled into `[low, high]` (4 bytes).
    Scaled {
        /// Lower end of the range.
        low: f64,
        /// Upper end of the range.
        high: f64,
        /// Bits of the integer.
        bits: u32,
    },
}

impl Packed {
    /// The packing given by a member's or leaf's title (`[xmin,xmax,nbits]` ranges).
    pub fn from_title(float16: bool, title: &str) -> Packed {
        // The bracket group with a comma: `x[n]/f[-5,5,10]` has a dimension first.
        let range = title
            .split('[')
            .skip(1)
            .filter_map(|part| part.split_once(']').map(|(inside, _)| inside))
            .find(|r| r.contains(','));
        let Some(range) = range else {
            return if float16 {
                Packed::Truncated { bits: 12 }
            } else {
                Packed::AsFloat
            };
        };
        let parts: Vec<&str> = range.split(',').map(str::trim).collect();
        let low = parse_number(parts[0]).unwrap_or(0.0);
        let high = parts.get(1).and_then(|p| parse_number(p)).unwrap_or(0.0);
        let bits = parts
            .get(2)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(32)
            .clamp(2, 32);
        if low == 0.0 && high == 0.0 {
            Packed::Truncated {
                bits: bits.min(if float16 { 16 } else { 23 }).max(2),
            }
        } else {
            Packed::Scaled { low, high, bits }
        }
    }

    /// Bytes of one stored value.
    pub fn bytes(&self) -> usize {
        match self {
            Packed::Truncated { .. } => 3,
            _ => 4,
        }
    }

    /// Unpacks `out.len()` stored values.
    pub fn unpack(&self, bytes: &[u8], out: &mut [f64]) {
        match *self {
            Packed::AsFloat => {
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = f32::from_be_bytes([c[0], c[1], c[2], c[3]]) as f64;
                }
            }
            Packed::Truncated { bits } => {
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(3)) {
                    let exponent = c[0] as u32;
                    let mantissa = u16::from_be_bytes([c[1], c[2]]) as u32;
                    let mask = (1u32 << (bits + 1)) - 1;
                    let raw = (exponent << 23) | ((mantissa & mask) << (23 - bits.min(23)));
                    let mut v = f32::from_bits(raw);
                    if mantissa & (1 << (bits + 1)) != 0 {
                        v = -v;
                    }
                    *o = v as f64;
                }
            }
            Packed::Scaled { low, high, bits } => {
                // As ROOT computes it: `2^bits` (or `2^32 - 1` for 32 bits) steps per
                // range, each value `n / factor + low`, in double precision.
                let steps = if bits < 32 { 1u64 << bits } else { 0xffff_ffff };
                let factor = steps as f64 / (high - low);
                for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as f64 / factor + low;
                }
            }
        }
    }
}

fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.replace("tmath::pi()", "pi");
    if let Ok(v) = t.parse() {
        return Some(v);
    }
    let pi = std::f64::consts::PI;
    let (sign, t) = match t.strip_prefix('-') {
        Some(rest) => (-1.0, rest.trim()),
        None => (1.0, t.as_str()),
    };
    let v = if t == "pi" {
        pi
    } else if let Some(k) = t.strip_suffix("*pi") {
        k.trim().parse::<f64>().ok()? * pi
    } else if let Some(k) = t.strip_prefix("pi/") {
        pi / k.trim().parse::<f64>().ok()?
    } else if let Some(k) = t.strip_prefix("2pi") {
        if k.is_empty() {
            2.0 * pi
        } else {
            return None;
        }
    } else {
        return None;
    };
    Some(sign * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_floats() {
        assert_eq!(Packed::from_title(false, "x"), Packed::AsFloat);
        // A counted array: the dimension comes before the range.
        assert_eq!(
            Packed::from_title(true, "f16v[n]/f[-5,5,10]"),
            Packed::Scaled {
                low: -5.0,
                high: 5.0,
                bits: 10
            }
        );
        assert_eq!(
            Packed::from_title(false, "energy [0, 100, 10]"),
            Packed::Scaled {
                low: 0.0,
                high: 100.0,
                bits: 10
            }
        );
        assert_eq!(
            Packed::from_title(true, "[0,0,8]"),
            Packed::Truncated { bits: 8 }
        );
        let mut out = [0.0];
        Packed::Scaled {
            low: 0.0,
            high: 100.0,
            bits: 10,
        }
        .unpack(&512u32.to_be_bytes(), &mut out);
        assert_eq!(out[0], 50.0);
        // 1.5f = 0x3FC00000: exponent 127, mantissa 0x400000 -> with 12 bits: 0x800.
        Packed::Truncated { bits: 12 }.unpack(&[127, 0x08, 0x00], &mut out);
        assert_eq!(out[0], 1.5);
        Packed::Truncated { bits: 12 }.unpack(&[127, 0x28, 0x00], &mut out);
        assert_eq!(out[0], -1.5);
    }
}
