//! Updating files in place (`update::open_for_update`): a file ROOT wrote gets a new tree
//! in a new directory and a second cycle of its own tree, keeps every object and class it
//! had, lists the records it no longer uses as free segments; deleting and re-opening
//! work; bad files are refused with the file named. (ROOT 6.40 and uproot read updated
//! files in tests/python/test_update.py.)

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rootweave::array::{Array, ColumnData, LeafType};
use rootweave::container::read_streamers;
use rootweave::container::{DirectoryId, RootFile};
use rootweave::ttree::{BranchSpec, TTreeReader, TTreeWriteOptions, TTreeWriter};
use rootweave::update::open_for_update;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rootweave-update-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn add_tree(file: &Arc<rootweave::container::FileWriter>, name: &str, x: &[f64]) {
    let mut tree = TTreeWriter::in_file(
        file.clone(),
        name,
        vec![BranchSpec::scalar("x", LeafType::Float64)],
        TTreeWriteOptions::default(),
    )
    .unwrap();
    tree.extend(&[ColumnData::Float64(x)]).unwrap();
    tree.close().unwrap();
}

fn cycles(file: &RootFile, name: &str) -> Vec<u16> {
    file.keys()
        .iter()
        .filter(|k| k.name == name)
        .map(|k| k.cycle)
        .collect()
}

/// The classes of a file's StreamerInfo record, in its order.
fn class_names(file: &RootFile) -> Vec<String> {
    let streamers = read_streamers(file).unwrap();
    streamers
        .all()
        .iter()
        .map(|i| i.class_name.clone())
        .collect()
}

#[test]
fn a_root_file_gets_trees_and_keeps_what_it_had() {
    let path = temp("hzz.root");
    std::fs::copy(data("uproot-HZZ.root"), &path).unwrap();
    let before = TTreeReader::open(&path, "events").unwrap();
    let original = before
        .read(&["Muon_Px", "NJet"], 0..before.entries())
        .unwrap();
    let classes_before = class_names(before.file());
    drop(before);

    let file = Arc::new(open_for_update(&path).unwrap());
    add_tree(&file, "events", &[1.0, 2.0, 3.0]);
    add_tree(&file, "sub/added", &[4.0, 5.0]);
    Arc::into_inner(file).unwrap().close().unwrap();

    let updated = RootFile::open(&path).unwrap();
    assert_eq!(cycles(&updated, "events"), [1, 2]);
    assert!(updated.header().nfree > 1, "freed records are listed");
    let newest = TTreeReader::open(&path, "events").unwrap();
    assert_eq!(
        newest.read(&["x"], 0..3).unwrap()[0].1,
        Array::Float64(vec![1.0, 2.0, 3.0])
    );
    let old = TTreeReader::open(&path, "events;1").unwrap();
    assert_eq!(
        old.read(&["Muon_Px", "NJet"], 0..old.entries()).unwrap(),
        original
    );
    let added = TTreeReader::open(&path, "sub/added").unwrap();
    assert_eq!(
        added.read(&["x"], 0..2).unwrap()[0].1,
        Array::Float64(vec![4.0, 5.0])
    );
    // The file's own layouts stay first and once; the layouts of the class versions the
    // new trees are written in (TTree 20 beside the file's 19) are added.
    let classes = class_names(old.file());
    assert_eq!(classes[..classes_before.len()], classes_before[..]);
    assert_eq!(classes.iter().filter(|c| *c == "TTree").count(), 2);
    assert_eq!(classes.iter().filter(|c| *c == "TLeafD").count(), 1);

    // A second update deletes the newest cycle; a third changes nothing.
    let file = open_for_update(&path).unwrap();
    let deleted = file.delete(DirectoryId::TOP, "events", None).unwrap();
    assert_eq!(deleted.cycle, 2);
    assert!(file.delete(DirectoryId::TOP, "missing", None).is_err());
    assert!(
        file.delete(DirectoryId::TOP, "sub", None).is_err(),
        "a directory"
    );
    let in_sub = file
        .listing()
        .iter()
        .filter(|(dir, _)| dir == "sub")
        .count();
    assert_eq!(in_sub, 1);
    file.close().unwrap();
    open_for_update(&path).unwrap().close().unwrap();
    let after = RootFile::open(&path).unwrap();
    assert_eq!(cycles(&after, "events"), [1]);
    let old = TTreeReader::open(&path, "events").unwrap();
    assert_eq!(
        old.read(&["Muon_Px", "NJet"], 0..old.entries()).unwrap(),
        original
    );
    assert_eq!(TTreeReader::open(&path, "sub/added").unwrap().entries(), 2);
}

#[test]
fn files_that_cannot_be_updated_are_refused_with_their_name() {
    let text = temp("text.root");
    std::fs::write(&text, b"not a ROOT file at all, just some text to read").unwrap();
    let cut = temp("cut.root");
    let bytes = std::fs::read(data("uproot-HZZ.root")).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for path in [&text, &cut, &temp("missing.root")] {
        let error = open_for_update(path).unwrap_err().to_string();
        assert!(error.contains(&*path.to_string_lossy()), "{error}");
    }
    // Refused files are left as they were.
    assert_eq!(std::fs::read(&cut).unwrap(), &bytes[..bytes.len() / 2]);
}

/// The UUID, creation and modification time of the record of directory `path` of the file
/// at `file`.
fn directory_identity(file: &Path, path: &str) -> ([u8; 16], u32, u32) {
    let root = RootFile::open(file).unwrap();
    let record = root.read_object(&root.get_key(path).unwrap()).unwrap();
    let u32_at = |i: usize| u32::from_be_bytes(record[i..i + 4].try_into().unwrap());
    let version = u16::from_be_bytes([record[0], record[1]]);
    // Version, two dates, two sizes, three offsets (4 or 8 bytes each), the UUID's version.
    let uuid_at = 18 + if version > 1000 { 24 } else { 12 } + 2;
    let uuid: [u8; 16] = record[uuid_at..uuid_at + 16].try_into().unwrap();
    (uuid, u32_at(2), u32_at(6))
}

#[test]
fn subdirectories_keep_their_uuid_and_creation_time() {
    let path = temp("identity.root");
    {
        let file =
            Arc::new(rootweave::container::FileWriter::create(&path, Default::default()).unwrap());
        add_tree(&file, "sub/t", &[1.0]);
        add_tree(&file, "sub/deeper/t", &[2.0]);
        Arc::into_inner(file).unwrap().close().unwrap();
    }
    let before = [
        directory_identity(&path, "sub"),
        directory_identity(&path, "sub/deeper"),
    ];
    assert_ne!(
        before[0].0, before[1].0,
        "directories have UUIDs of their own"
    );
    // Updated twice: once adding to both directories, once changing nothing.
    let file = Arc::new(open_for_update(&path).unwrap());
    add_tree(&file, "sub/t", &[3.0]);
    add_tree(&file, "sub/deeper/u", &[4.0]);
    Arc::into_inner(file).unwrap().close().unwrap();
    open_for_update(&path).unwrap().close().unwrap();
    for (dir, (uuid, created, modified)) in ["sub", "sub/deeper"].iter().zip(before) {
        let after = directory_identity(&path, dir);
        assert_eq!((after.0, after.1), (uuid, created), "{dir}");
        assert!(
            after.2 >= modified,
            "{dir}: modified {} before {modified}",
            after.2
        );
    }
    assert_eq!(
        TTreeReader::open(&path, "sub/deeper/u").unwrap().entries(),
        1
    );
}
