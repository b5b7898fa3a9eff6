//! `TStreamerInfo` records: the class layouts a file carries so that readers (ROOT for
//! schema evolution, uproot for any class it has no built-in model of) can decode objects.
//!
//! Every object is written with a new-class tag (class name spelled out) and never with a
//! back-reference, so the bytes do not depend on where they end up in the file.

use super::element::{Element, ElementClass, StreamerInfo};
use super::stream::ObjectStream;
use super::tags::{BYTE_COUNT_MASK, IS_REFERENCED};

/// `kIsOnHeap`-style bits ROOT 6.40 stores in a `TStreamerInfo`'s `TObject`.
const STREAMER_INFO_BITS: u32 = 0x0001_0000;

fn write_info(b: &mut ObjectStream, info: &StreamerInfo) {
    b.begin_object("TStreamerInfo");
    b.begin();
    b.u16(10);
    b.tnamed(&info.class_name, "", STREAMER_INFO_BITS);
    b.u32(info.checksum);
    b.i32(info.class_version);
    b.begin_object("TObjArray");
    b.begin();
    b.u16(3);
    b.tobject(0);
    b.tstring("");
    b.i32(info.elements.len() as i32);
    b.i32(0);
    for element in &info.elements {
        write_element(b, element);
    }
    b.end();
    b.end();
    b.end();
    b.end();
}

/// A `TStreamerElement` subclass: the element's common part (version 4), then what the
/// subclass adds. Elements of [`super::ElementClass::Other`] are not written (layouts
/// holding one are left out by whoever gathers layouts to write).
fn write_element(b: &mut ObjectStream, element: &Element) {
    let Some((class, version)) = element.class.streamer_class() else {
        debug_assert!(false, "element {} of no known class", element.name);
        return;
    };
    b.begin_object(class);
    b.begin();
    b.u16(version);
    let stl_string = element.class == ElementClass::StlString;
    if stl_string {
        // TStreamerSTLstring: its version, then the TStreamerSTL it derives from.
        b.begin();
        b.u16(3);
    }
    b.begin();
    b.u16(4);
    b.tnamed(&element.name, &element.title, 0);
    b.i32(element.ty);
    b.i32(element.size);
    b.i32(element.array_length);
    b.i32(element.array_dim);
    for i in element.max_index {
        b.i32(i);
    }
    b.tstring(&element.type_name);
    b.end();
    match element.class {
        ElementClass::Base => b.i32(element.base_version),
        ElementClass::BasicPointer | ElementClass::Loop => {
            b.i32(element.count_version);
            b.tstring(&element.count_name);
            b.tstring(&element.count_class);
        }
        ElementClass::Stl | ElementClass::StlString => {
            b.i32(element.stl_type);
            b.i32(element.ctype);
        }
        _ => {}
    }
    if stl_string {
        b.end();
    }
    b.end();
    b.end();
}

/// The payload of a file's StreamerInfo record: a streamed `TList` of the given infos.
pub fn streamer_list(infos: &[StreamerInfo]) -> Vec<u8> {
    let mut b = ObjectStream::default();
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
    b.into_bytes()
}

/// `record` (a file's StreamerInfo record: a streamed `TList`) with `infos` added at its
/// end, for a file given objects of classes its record lacks. The record's own bytes and
/// reference tags stay where they are (only its byte count and object count change), and
/// the added layouts refer to nothing before them. `None` if the list's header cannot be
/// read.
pub fn extend_streamer_list(record: &[u8], infos: &[StreamerInfo]) -> Option<Vec<u8>> {
    let u32_at = |p: usize| Some(u32::from_be_bytes(record.get(p..p + 4)?.try_into().ok()?));
    let count = u32_at(0)?;
    if count & BYTE_COUNT_MASK == 0 || (count & !BYTE_COUNT_MASK) as usize + 4 != record.len() {
        return None;
    }
    // Version, then TObject (version, unique id, bits, a process id if referenced).
    let bits = u32_at(12)?;
    let mut at = 16 + if bits & IS_REFERENCED != 0 { 2 } else { 0 };
    // The list's name, a TString.
    at += match *record.get(at)? {
        255 => 5 + u32_at(at + 1)? as usize,
        n => 1 + n as usize,
    };
    let listed = u32_at(at)?;
    let mut out = record.to_vec();
    out[at..at + 4].copy_from_slice(&(listed + infos.len() as u32).to_be_bytes());
    let mut b = ObjectStream::default();
    for info in infos {
        write_info(&mut b, info);
        b.u8(0); // option string of the list entry
    }
    out.extend_from_slice(&b.into_bytes());
    let total = u32::try_from(out.len() - 4)
        .ok()
        .filter(|&n| n < BYTE_COUNT_MASK)?;
    out[..4].copy_from_slice(&(total | BYTE_COUNT_MASK).to_be_bytes());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streamer::rntuple_anchor_info;

    #[test]
    fn empty_list_matches_root() {
        assert_eq!(
            streamer_list(&[]),
            [0x40, 0, 0, 0x11, 0, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn extended_list_equals_one_written_whole() {
        let first = streamer_list(&[rntuple_anchor_info()]);
        let mut other = rntuple_anchor_info();
        other.class_name = "Other".into();
        let extended = extend_streamer_list(&first, &[other.clone()]).unwrap();
        assert_eq!(extended, streamer_list(&[rntuple_anchor_info(), other]));
        assert_eq!(extend_streamer_list(&first, &[]).unwrap(), first);
        assert!(extend_streamer_list(&first[..first.len() - 1], &[]).is_none());
        assert!(extend_streamer_list(&[0x40, 0, 0], &[]).is_none());
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
