//! Tests of baskets kept inside their branch: what follows the header is what the flag says.

use super::{read_embedded_basket, Name, Value};
use crate::streamer::cursor::Cursor;

/// A basket kept in its branch: a 4-byte key header, 10 entries' room of which `nev_buf`
/// are used, `flag`, then `after` (offsets, displacements, the key copy and the data).
fn basket(nev_buf: i32, last: i32, flag: u8, after: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0i32.to_be_bytes()); // nbytes: no key of its own
    b.extend(4i16.to_be_bytes()); // key version
    b.extend(0i32.to_be_bytes()); // objlen
    b.extend(0u32.to_be_bytes()); // datime
    b.extend(4i16.to_be_bytes()); // keylen
    b.extend(1i16.to_be_bytes()); // cycle
    b.extend([0; 8]); // seeks
    b.extend([0, 0, 0]); // class name, name, title
    b.extend(3u16.to_be_bytes()); // version
    b.extend(32000i32.to_be_bytes()); // buffer size
    b.extend(10i32.to_be_bytes()); // fNevBufSize
    b.extend(nev_buf.to_be_bytes());
    b.extend(last.to_be_bytes());
    b.push(flag);
    b.extend(after);
    b
}

fn read(bytes: &[u8]) -> crate::error::Result<Vec<(Name, Value)>> {
    let mut c = Cursor::new(bytes, 0, "f.root", "basket", 0);
    let mut members = Vec::new();
    read_embedded_basket(&mut c, &mut members)?;
    Ok(members)
}

fn member<'a>(members: &'a [(Name, Value)], name: &str) -> Option<&'a Value> {
    members
        .iter()
        .find(|(n, _)| n.as_ref() == name)
        .map(|(_, v)| v)
}

#[test]
fn the_flag_says_whether_offsets_precede_the_data() {
    let data: Vec<u8> = (1..=10).collect();
    let key_and_data = [&[9u8; 4][..], &data].concat();
    let offsets = [&1i32.to_be_bytes()[..], &4i32.to_be_bytes()].concat();
    // Flag 11: offsets, then the data, which here is exactly fNevBufSize bytes for one
    // entry (the length alone would say fixed-size entries without offsets).
    let m = read(&basket(1, 14, 11, &[&offsets[..], &key_and_data].concat())).unwrap();
    assert_eq!(member(&m, "fEntryOffset"), Some(&Value::Ints(vec![4])));
    assert_eq!(member(&m, "fData"), Some(&Value::Bytes(data.clone())));
    // Flag 12: no offsets, the data.
    let m = read(&basket(1, 14, 12, &key_and_data)).unwrap();
    assert_eq!(member(&m, "fEntryOffset"), None);
    assert_eq!(member(&m, "fData"), Some(&Value::Bytes(data.clone())));
    // Flag 51: offsets, displacements, the data; flag 31: offsets with displacement bits.
    let displaced = [&offsets[..], &offsets[..], &key_and_data].concat();
    let m = read(&basket(1, 14, 51, &displaced)).unwrap();
    assert_eq!(member(&m, "fData"), Some(&Value::Bytes(data.clone())));
    let high = [
        &1i32.to_be_bytes()[..],
        &0x0300_0004i32.to_be_bytes(),
        &key_and_data,
    ]
    .concat();
    let m = read(&basket(1, 14, 31, &high)).unwrap();
    assert_eq!(member(&m, "fEntryOffset"), Some(&Value::Ints(vec![4])));
    // Flag 0: a header only.
    let m = read(&basket(1, 14, 0, &[])).unwrap();
    assert_eq!(member(&m, "fData"), None);
    // Flag 91: offsets ROOT would regenerate: an error, not a guess.
    assert!(read(&basket(1, 14, 91, &key_and_data)).is_err());
    // A count of offsets past the bytes left, or data cut short.
    let many = [&1000i32.to_be_bytes()[..], &key_and_data].concat();
    assert!(read(&basket(1, 14, 11, &many)).is_err());
    assert!(read(&basket(1, 14, 12, &key_and_data[..8])).is_err());
}
