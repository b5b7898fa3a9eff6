//! A file's StreamerInfo record as the container holds it: its class layouts read, and
//! the record made for a key of another length (when it is copied into another file).

use super::{KeyInfo, RootFile};
use crate::streamer::bytes::BeReader;
use crate::streamer::restream::rewrite;
use crate::streamer::StreamerSet;

/// Reads the class layouts of a file's StreamerInfo record (empty if it has none).
pub fn read_streamers(file: &RootFile) -> crate::error::Result<StreamerSet> {
    let h = file.header();
    if h.seek_info <= h.begin || h.nbytes_info == 0 {
        return Ok(StreamerSet::default());
    }
    let head = file.read_at(
        h.seek_info,
        (h.nbytes_info as u64).min(file.size() - h.seek_info.min(file.size())),
        "StreamerInfo record",
    )?;
    let key = KeyInfo::decode(&mut BeReader::new(
        &head,
        h.seek_info,
        file.name(),
        "StreamerInfo record",
    ))?;
    let payload = file.read_object(&key)?;
    let (object, base) = key.record_label("StreamerInfo record");
    StreamerSet::parse(&payload, base, file.name(), &object, key.keylen as u32)
}

/// A file's StreamerInfo `record` (behind `key`) made for each length the StreamerInfo
/// key of the file it goes to may have (small and big), its reference tags moved by the
/// difference; a length it cannot be moved to (parts not read) is left out. An error if
/// it fits neither.
pub fn streamer_records(
    file: &str,
    key: &KeyInfo,
    record: &[u8],
) -> Result<Vec<(usize, Vec<u8>)>, String> {
    let (object, base) = key.record_label("StreamerInfo record");
    let (_, trace) = StreamerSet::parse_traced(record, base, file, &object, key.keylen as u32)
        .map_err(|e| e.to_string())?;
    let lengths = [false, true]
        .map(|big| KeyInfo::header_len("TList", "StreamerInfo", "Doubly linked list", big));
    let mut out = Vec::new();
    for keylen in lengths {
        if keylen == key.keylen as usize {
            out.push((keylen, record.to_vec()));
        } else if trace.opaque.is_empty() {
            out.push((
                keylen,
                rewrite(record, &trace, vec![], key.keylen as u32, keylen as u32)?,
            ));
        }
    }
    if out.is_empty() {
        return Err("parts of it could not be read".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::container::{KeyInfo, RootFile};
    use crate::streamer::bytes::BeReader;
    use crate::streamer::{code, ElementClass, StreamerSet};

    /// The streamer infos of a file written by ROOT: TTree's and TBranch's members as ROOT
    /// describes them (a base class first, a counted array of basket sizes).
    #[test]
    fn streamer_infos_of_a_root_file() {
        let file = RootFile::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/uproot-HZZ.root"
        ))
        .unwrap();
        let payload = file.streamer_list_payload().unwrap().unwrap();
        let h = file.header();
        let bytes = file.read_at(h.seek_info, 64, "key").unwrap();
        let key = KeyInfo::decode(&mut BeReader::new(&bytes, 0, "f", "k")).unwrap();
        let set =
            StreamerSet::parse(&payload, 0, "f", "StreamerInfo record", key.keylen as u32).unwrap();
        let tree = set.get("TTree", 19).unwrap();
        assert_eq!(tree.elements[0].class, ElementClass::Base);
        assert_eq!(tree.elements[0].name, "TNamed");
        assert!(tree.elements.iter().any(|e| e.name == "fEntries"));
        let branch = set.get("TBranch", 12).unwrap();
        let bytes = branch
            .elements
            .iter()
            .find(|e| e.name == "fBasketBytes")
            .unwrap();
        assert_eq!(bytes.class, ElementClass::BasicPointer);
        assert_eq!(bytes.count_name, "fMaxBaskets");
        assert_eq!(bytes.ty, code::OFFSET_P + code::INT);
    }
}

#[cfg(test)]
mod traced_tests {
    use crate::container::RootFile;
    use crate::streamer::{restream, StreamerSet};

    /// Every StreamerInfo record of the test files (ROOT's, uproot's, experiments') is
    /// read whole, so it can be moved to a key of another length: moved there and back it
    /// is the same bytes, and there it describes the same classes.
    #[test]
    fn streamer_records_move_to_keys_of_another_length() {
        let here = env!("CARGO_MANIFEST_DIR");
        let dirs = [
            format!("{here}/../../tests/data"),
            format!("{here}/../../../shared/testdata"),
            format!("{here}/../../../shared/corpus/scikit-hep-testdata"),
        ];
        let paths = dirs
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flatten()
            .map(|e| e.unwrap().path());
        let mut checked = 0;
        for path in paths {
            if path.extension().is_none_or(|e| e != "root") {
                continue;
            }
            let Ok(file) = RootFile::open(&path) else {
                continue;
            };
            let Ok(Some((key, record))) = file.streamer_record() else {
                continue;
            };
            let name = path.display().to_string();
            let keylen = key.keylen as u32;
            let Ok((set, trace)) =
                StreamerSet::parse_traced(&record, 0, &name, "StreamerInfo record", keylen)
            else {
                continue; // (files with records this reader refuses are tested elsewhere)
            };
            assert!(trace.opaque.is_empty(), "{name}: {:?}", trace.opaque);
            let moved = restream::rewrite(&record, &trace, vec![], keylen, keylen + 8).unwrap();
            let (again, trace2) =
                StreamerSet::parse_traced(&moved, 0, &name, "StreamerInfo record", keylen + 8)
                    .unwrap();
            assert_eq!(again.all().len(), set.all().len(), "{name}");
            let back = restream::rewrite(&moved, &trace2, vec![], keylen + 8, keylen).unwrap();
            assert!(back == record, "{name}");
            checked += 1;
        }
        assert!(checked >= 10, "{checked} files");
    }
}
