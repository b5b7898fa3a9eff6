//! `TStreamerInfo` records: the class layouts a file carries so that readers (ROOT for
//! schema evolution, uproot for any class it has no built-in model of) can decode objects.
//!
//! Every object is written with a new-class tag (class name spelled out) and never with a
//! back-reference, so the bytes do not depend on where they end up in the file.

/// ROOT's `TStreamerInfo` type codes of the basic members this library writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum BasicType {
    /// `unsigned short` (kUShort).
    UShort = 12,
    /// `unsigned long` / `std::uint64_t` (kULong64 is 17; `unsigned long` is kULong, 14).
    ULong = 14,
}

impl BasicType {
    fn size(self) -> i32 {
        match self {
            BasicType::UShort => 2,
            BasicType::ULong => 8,
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            BasicType::UShort => "unsigned short",
            BasicType::ULong => "unsigned long",
        }
    }
}

/// A class layout made of basic-type members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamerInfo {
    /// The class name.
    pub class_name: &'static str,
    /// ROOT's checksum of the class layout.
    pub checksum: u32,
    /// The class version.
    pub class_version: i32,
    /// The members in streaming order.
    pub members: Vec<(&'static str, BasicType)>,
}

/// The layout of `ROOT::RNTuple` (the anchor), class version 2, as ROOT 6.40 declares it.
pub fn rntuple_anchor_info() -> StreamerInfo {
    use BasicType::*;
    StreamerInfo {
        class_name: "ROOT::RNTuple",
        checksum: 0x28e6_32ec,
        class_version: 2,
        members: vec![
            ("fVersionEpoch", UShort),
            ("fVersionMajor", UShort),
            ("fVersionMinor", UShort),
            ("fVersionPatch", UShort),
            ("fSeekHeader", ULong),
            ("fNBytesHeader", ULong),
            ("fLenHeader", ULong),
            ("fSeekFooter", ULong),
            ("fNBytesFooter", ULong),
            ("fLenFooter", ULong),
            ("fMaxKeySize", ULong),
        ],
    }
}

/// Big-endian streaming buffer with ROOT's byte counts.
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    counts: Vec<usize>,
}

impl Buffer {
    fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }
    fn tstring(&mut self, s: &str) {
        if s.len() < 255 {
            self.u8(s.len() as u8);
        } else {
            self.u8(255);
            self.i32(s.len() as i32);
        }
        self.bytes.extend_from_slice(s.as_bytes());
    }
    /// Starts a byte-counted region (the count is filled by `end`).
    fn begin(&mut self) {
        self.counts.push(self.bytes.len());
        self.u32(0);
    }
    fn end(&mut self) {
        let start = self.counts.pop().expect("begin before end");
        let count = (self.bytes.len() - start - 4) as u32 | 0x4000_0000;
        self.bytes[start..start + 4].copy_from_slice(&count.to_be_bytes());
    }
    /// Starts an object written through a pointer: byte count and new-class tag.
    fn begin_object(&mut self, class: &str) {
        self.begin();
        self.u32(0xFFFF_FFFF);
        self.bytes.extend_from_slice(class.as_bytes());
        self.u8(0);
    }
    fn tobject(&mut self, bits: u32) {
        self.u16(1);
        self.u32(0);
        self.u32(bits);
    }
    fn tnamed(&mut self, name: &str, title: &str, bits: u32) {
        self.begin();
        self.u16(1);
        self.tobject(bits);
        self.tstring(name);
        self.tstring(title);
        self.end();
    }
}

/// `kIsOnHeap`-style bits ROOT 6.40 stores in a `TStreamerInfo`'s `TObject`.
const STREAMER_INFO_BITS: u32 = 0x0001_0000;

fn write_info(b: &mut Buffer, info: &StreamerInfo) {
    b.begin_object("TStreamerInfo");
    b.begin();
    b.u16(10);
    b.tnamed(info.class_name, "", STREAMER_INFO_BITS);
    b.u32(info.checksum);
    b.i32(info.class_version);
    b.begin_object("TObjArray");
    b.begin();
    b.u16(3);
    b.tobject(0);
    b.tstring("");
    b.i32(info.members.len() as i32);
    b.i32(0);
    for (name, ty) in &info.members {
        b.begin_object("TStreamerBasicType");
        b.begin();
        b.u16(2);
        b.begin();
        b.u16(4);
        b.tnamed(name, "", 0);
        b.i32(*ty as i32);
        b.i32(ty.size());
        b.i32(0); // fArrayLength
        b.i32(0); // fArrayDim
        for _ in 0..5 {
            b.i32(0); // fMaxIndex
        }
        b.tstring(ty.type_name());
        b.end();
        b.end();
        b.end();
    }
    b.end();
    b.end();
    b.end();
    b.end();
}

/// The payload of a file's StreamerInfo record: a streamed `TList` of the given infos.
pub fn streamer_list(infos: &[StreamerInfo]) -> Vec<u8> {
    let mut b = Buffer::default();
    b.begin();
    b.u16(5);
    b.tobject(0);
    b.tstring("");
    b.i32(infos.len() as i32);
    for info in infos {
        write_info(&mut b, info);
        b.u8(0); // option string of the list entry
    }
    b.end();
    b.bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_list_matches_root() {
        assert_eq!(
            streamer_list(&[]),
            [0x40, 0, 0, 0x11, 0, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn anchor_info_has_root_layout() {
        let bytes = streamer_list(&[rntuple_anchor_info()]);
        // ROOT 6.40 writes 1254 bytes for this list, with back-references to the
        // TStreamerBasicType class; each of the 10 repeated class names costs 19 + 4 - 4
        // bytes more here than a 4-byte reference.
        assert_eq!(bytes.len(), 1254 + 10 * 19);
        assert_eq!(&bytes[..6], &[0x40, 0, 0x05, 0xa0, 0, 5]);
        let find = |needle: &[u8]| bytes.windows(needle.len()).position(|w| w == needle);
        // The info's header: class name, checksum and version.
        let at = find(b"\x0dROOT::RNTuple\x00").unwrap();
        assert_eq!(
            &bytes[at + 15..at + 23],
            &[0x28, 0xe6, 0x32, 0xec, 0, 0, 0, 2]
        );
        // An element exactly as ROOT streams it (after its class tag).
        let element: &[u8] = b"\x40\x00\x00\x5a\x00\x02\x40\x00\x00\x54\x00\x04\x40\x00\x00\x1b\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x0dfVersionEpoch\x00\x00\x00\x00\x0c\x00\x00\x00\x02";
        assert!(find(element).is_some());
    }
}
