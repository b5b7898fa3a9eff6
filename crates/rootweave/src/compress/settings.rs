//! Compression settings: ROOT's integer form (`algorithm*100 + level`) and a typed form
//! parsed from strings such as `zstd:5`, `lz4`, `zlib:1`, `lzma:9` or `none`.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// How a codec chooses its parameters for each frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Frames {
    /// The parameters of a full RNTuple page (1 MiB) for every frame, whatever its size
    /// (libzstd would switch to slower match finders below 128 KiB): RNTuple pages.
    #[default]
    Pages,
    /// The codec's own parameters for each input's size, as ROOT's `R__zip` leaves them,
    /// and one ordinary zstd frame per block: TTree baskets, so that files come out as
    /// ROOT's do (byte for byte with zstd; zlib-rs and LZ4 differ from ROOT's libraries).
    Sized,
}

/// A compression algorithm that ROOT writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// No compression.
    None,
    /// zlib (ROOT algorithm 1, block tag `ZL`).
    Zlib,
    /// LZMA / xz (ROOT algorithm 2, block tag `XZ`).
    Lzma,
    /// LZ4 with an xxhash64 checksum (ROOT algorithm 4, block tag `L4`).
    Lz4,
    /// Zstandard (ROOT algorithm 5, block tag `ZS`).
    Zstd,
}

impl Codec {
    /// ROOT's algorithm number (the hundreds digit of a setting).
    pub fn root_algorithm(self) -> i32 {
        match self {
            Codec::None => 0,
            Codec::Zlib => 1,
            Codec::Lzma => 2,
            Codec::Lz4 => 4,
            Codec::Zstd => 5,
        }
    }

    /// The level ROOT uses when only the algorithm is named.
    pub fn default_level(self) -> u32 {
        match self {
            Codec::None => 0,
            Codec::Zlib => 1,
            Codec::Lzma => 7,
            Codec::Lz4 => 4,
            Codec::Zstd => 5,
        }
    }

    /// The highest level the codec accepts in a ROOT setting.
    pub fn max_level(self) -> u32 {
        match self {
            Codec::None => 0,
            Codec::Zlib | Codec::Lzma | Codec::Lz4 => 9,
            // ROOT passes twice its level to libzstd, whose highest level is 22.
            Codec::Zstd => 11,
        }
    }

    /// The lower-case name used in textual settings.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zlib => "zlib",
            Codec::Lzma => "lzma",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
        }
    }
}

/// A compression setting: a codec and its level, with ROOT's meaning of levels. Level 0
/// (or [`Codec::None`]) means that data is stored uncompressed. For ZSTD, ROOT's level `L`
/// is libzstd's level `2L` (so `zstd:5`, ROOT's 505, compresses like `zstd -10`); LZ4 from
/// level 4 on is LZ4-HC at that level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Compression {
    codec: Codec,
    level: u32,
}

impl Compression {
    /// No compression.
    pub const NONE: Compression = Compression {
        codec: Codec::None,
        level: 0,
    };

    /// ROOT's general-purpose default for RNTuple (`505`, zstd level 5).
    pub const ROOT_RNTUPLE_DEFAULT: Compression = Compression {
        codec: Codec::Zstd,
        level: 5,
    };

    /// ROOT's `TFile` default (`101`, zlib level 1), which its trees' baskets take.
    pub const ROOT_FILE_DEFAULT: Compression = Compression {
        codec: Codec::Zlib,
        level: 1,
    };

    /// A setting with an explicit level; level 0 gives [`Compression::NONE`].
    pub fn new(codec: Codec, level: u32) -> Result<Self> {
        if codec == Codec::None || level == 0 {
            return Ok(Self::NONE);
        }
        if level > codec.max_level() {
            return Err(Error::InvalidArgument(format!(
                "compression level {level} is out of range for {} (1..={})",
                codec.name(),
                codec.max_level()
            )));
        }
        Ok(Compression { codec, level })
    }

    /// The codec's default level (e.g. `lz4` -> level 4).
    pub fn with_default_level(codec: Codec) -> Self {
        Self::new(codec, codec.default_level()).expect("default levels are valid")
    }

    /// Parses ROOT's integer setting (`algorithm*100 + level`, e.g. 505, 404, 101, 207, 0).
    /// Algorithm 0 means ROOT's compiled default algorithm (zlib).
    pub fn from_root_setting(setting: i32) -> Result<Self> {
        if setting < 0 {
            return Err(Error::InvalidArgument(format!(
                "compression setting {setting} is negative"
            )));
        }
        let algorithm = setting / 100;
        let level = (setting % 100) as u32;
        let codec = match algorithm {
            0 | 1 => Codec::Zlib,
            2 => Codec::Lzma,
            4 => Codec::Lz4,
            5 => Codec::Zstd,
            3 => {
                return Err(Error::InvalidArgument(
                    "compression algorithm 3 (ROOT's legacy deflate) cannot be written".into(),
                ))
            }
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "unknown compression algorithm {algorithm} in setting {setting}"
                )))
            }
        };
        Self::new(codec, level)
    }

    /// ROOT's integer form: `algorithm*100 + level`, 0 for no compression.
    pub fn root_setting(self) -> i32 {
        if self.is_none() {
            0
        } else {
            self.codec.root_algorithm() * 100 + self.level as i32
        }
    }

    /// The codec.
    pub fn codec(self) -> Codec {
        self.codec
    }

    /// The level (0 when uncompressed).
    pub fn level(self) -> u32 {
        self.level
    }

    /// True if data is stored uncompressed.
    pub fn is_none(self) -> bool {
        self.codec == Codec::None
    }
}

impl Default for Compression {
    fn default() -> Self {
        Self::ROOT_RNTUPLE_DEFAULT
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            f.write_str("none")
        } else {
            write!(f, "{}:{}", self.codec.name(), self.level)
        }
    }
}

impl FromStr for Compression {
    type Err = Error;

    /// Accepts `none`, `zlib`, `lz4`, `zstd`, `lzma` with an optional `:level`, or ROOT's
    /// integer form such as `505`.
    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        if let Ok(setting) = text.parse::<i32>() {
            return Self::from_root_setting(setting);
        }
        let (name, level) = match text.split_once(':') {
            Some((name, level)) => {
                let level = level.trim().parse::<u32>().map_err(|_| {
                    Error::InvalidArgument(format!("bad compression level in '{text}'"))
                })?;
                (name.trim(), Some(level))
            }
            None => (text, None),
        };
        let codec = match name.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => Codec::None,
            "zlib" => Codec::Zlib,
            "lzma" | "xz" => Codec::Lzma,
            "lz4" => Codec::Lz4,
            "zstd" | "zstandard" => Codec::Zstd,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "unknown compression '{text}' (expected none, zlib, lz4, zstd or lzma, \
                     optionally with :level, or ROOT's integer setting)"
                )))
            }
        };
        match level {
            Some(level) => Self::new(codec, level),
            None => Ok(Self::with_default_level(codec)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_settings_round_trip() {
        for setting in [0, 101, 109, 207, 404, 409, 505, 511] {
            let c = Compression::from_root_setting(setting).unwrap();
            assert_eq!(c.root_setting(), setting);
        }
        assert_eq!(
            Compression::from_root_setting(100).unwrap(),
            Compression::NONE
        );
        assert_eq!(
            Compression::from_root_setting(1).unwrap(),
            Compression::new(Codec::Zlib, 1).unwrap()
        );
        assert!(Compression::from_root_setting(301).is_err());
        assert!(Compression::from_root_setting(601).is_err());
        assert!(Compression::from_root_setting(-5).is_err());
        assert!(Compression::from_root_setting(150).is_err());
    }

    #[test]
    fn strings_parse() {
        let p = |s: &str| s.parse::<Compression>().unwrap().root_setting();
        assert_eq!(p("zstd:5"), 505);
        assert_eq!(p("zstd"), 505);
        assert_eq!(p("lz4"), 404);
        assert_eq!(p("zlib:1"), 101);
        assert_eq!(p("lzma:9"), 209);
        assert_eq!(p("lzma"), 207);
        assert_eq!(p("none"), 0);
        assert_eq!(p("505"), 505);
        assert_eq!(
            "zstd:5".parse::<Compression>().unwrap().to_string(),
            "zstd:5"
        );
        assert!("brotli".parse::<Compression>().is_err());
        assert!("zlib:x".parse::<Compression>().is_err());
        assert!("zlib:12".parse::<Compression>().is_err());
    }
}
