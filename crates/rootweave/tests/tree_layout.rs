//! Fields laid out as TTree branches (`tree_layout::TreeLayout`): the branch names and kinds
//! uproot and NanoAOD use, batches split into branch batches that the writer takes and the
//! reader gives back, and fields the format cannot hold refused by name.

use rootweave::array::{Array, ColumnData};
use rootweave::compress::Compression;
use rootweave::rntuple::{Field, FieldType};
use rootweave::tree_layout::{FieldOptions, TreeLayout};
use rootweave::ttree::{TTreeReader, TTreeWriteOptions, TTreeWriter};

fn fields() -> Vec<Field> {
    let vec3 = FieldType::untyped_record(vec![
        Field::new("x", FieldType::Float64),
        Field::new("y", FieldType::Float64),
    ]);
    vec![
        Field::new("run", FieldType::UInt32),
        Field::new(
            "Muon",
            FieldType::untyped_collection(FieldType::untyped_record(vec![
                Field::new("Muon_pt", FieldType::Float32),
                Field::new("p", vec3),
            ])),
        ),
        Field::new("Jet_pt", FieldType::vector(FieldType::Float32)),
        Field::new("Jet_eta", FieldType::vector(FieldType::Float32)),
        Field::new("hits", FieldType::vector(FieldType::Int32)),
        Field::new(
            "MET",
            FieldType::untyped_record(vec![Field::new("pt", FieldType::Float32)]),
        ),
        Field::new("name", FieldType::String),
        Field::new("tags", FieldType::vector(FieldType::String)),
    ]
}

/// A file in the temporary directory named after `what`, and a writer of `layout`'s
/// branches into it.
fn writer(what: &str, layout: &TreeLayout) -> (std::path::PathBuf, TTreeWriter) {
    let path = std::env::temp_dir().join(format!("rootweave-{what}-{}.root", std::process::id()));
    let w = TTreeWriter::recreate(
        &path,
        "Events",
        layout.branches().to_vec(),
        Compression::NONE,
        TTreeWriteOptions::default(),
    )
    .unwrap();
    (path, w)
}

#[test]
fn fields_become_nanoaod_branches_and_read_back() {
    let options = |f: &str| match f {
        "hits" => FieldOptions::default().with_std_vector(),
        "Jet_pt" | "Jet_eta" => FieldOptions::default().with_counter("nJet"),
        _ => FieldOptions::default(),
    };
    let layout = TreeLayout::new(&fields(), options).unwrap();
    let names: Vec<&str> = layout.branches().iter().map(|b| b.name()).collect();
    assert_eq!(
        names,
        [
            "run", "nMuon", "Muon_pt", "Muon_p_x", "Muon_p_y", "nJet", "Jet_pt", "Jet_eta", "hits",
            "MET_pt", "name", "tags"
        ]
    );

    // Three events: 2, 0 and 1 muons; 1, 2, 0 jets.
    let mu = [0u64, 2, 2, 3];
    let jets = [0u64, 1, 3, 3];
    let names = ["a".to_string(), "bb".into(), "".into()];
    let tags = ["t".to_string(), "u".into(), "v".into()];
    let batch = [
        ColumnData::UInt32(&[7, 7, 8]),
        ColumnData::list(
            &mu,
            ColumnData::Record(vec![
                ColumnData::Float32(&[10.0, 20.0, 30.0]),
                ColumnData::Record(vec![
                    ColumnData::Float64(&[1.0, 2.0, 3.0]),
                    ColumnData::Float64(&[-1.0, -2.0, -3.0]),
                ]),
            ]),
        ),
        ColumnData::list(&jets, ColumnData::Float32(&[5.0, 6.0, 7.0])),
        ColumnData::list(&jets, ColumnData::Float32(&[-5.0, -6.0, -7.0])),
        ColumnData::list(&jets, ColumnData::Int32(&[1, 2, 3])),
        ColumnData::Record(vec![ColumnData::Float32(&[0.5, 1.5, 2.5])]),
        ColumnData::Strings(&names),
        ColumnData::list(&mu, ColumnData::Strings(&tags)),
    ];
    let (path, mut w) = writer("layout", &layout);
    // Lists sharing a counter must agree on their lengths.
    let mut uneven = batch.clone();
    uneven[3] = ColumnData::list(&[0, 0, 3, 3], ColumnData::Float32(&[1.0, 2.0, 3.0]));
    let err = layout
        .with_branch_batches(&uneven, |b| w.extend(b))
        .unwrap_err();
    assert!(err.to_string().contains("Jet_eta"), "{err}");
    layout.with_branch_batches(&batch, |b| w.extend(b)).unwrap();
    // A batch whose record has another shape is refused before the writer sees it.
    let bad = [batch[0].clone(), ColumnData::UInt32(&[1, 2, 3])];
    assert!(layout.with_branch_batches(&bad, |_| Ok(())).is_err());
    w.close().unwrap();

    let t = TTreeReader::open(&path, "Events").unwrap();
    let cols = t
        .read(
            &["nMuon", "Muon_p_y", "nJet", "hits", "MET_pt", "Jet_eta"],
            0..3,
        )
        .unwrap();
    assert_eq!(cols[0].1, Array::Int32(vec![2, 0, 1]));
    assert_eq!(
        cols[1].1,
        Array::List {
            offsets: mu.to_vec(),
            values: Box::new(Array::Float64(vec![-1.0, -2.0, -3.0]))
        }
    );
    assert_eq!(cols[2].1, Array::Int32(vec![1, 2, 0]));
    assert_eq!(
        cols[3].1,
        Array::List {
            offsets: jets.to_vec(),
            values: Box::new(Array::Int32(vec![1, 2, 3]))
        }
    );
    assert_eq!(cols[4].1, Array::Float32(vec![0.5, 1.5, 2.5]));
    assert_eq!(
        cols[5].1,
        Array::List {
            offsets: jets.to_vec(),
            values: Box::new(Array::Float32(vec![-5.0, -6.0, -7.0]))
        }
    );
    std::fs::remove_file(&path).ok();
}

/// Counters of another integer type (NanoAOD's `UInt_t`), and a counter that is an integer
/// field written before its lists (as a snapshot of `nJet, Jet_pt` writes it): its values
/// must be their lengths.
#[test]
fn counters_of_other_types_and_counters_given_as_fields() {
    use rootweave::array::LeafType;
    let fields = vec![
        Field::new("nJet", FieldType::UInt32),
        Field::new("Jet_pt", FieldType::vector(FieldType::Float32)),
        Field::new("Muon_pt", FieldType::vector(FieldType::Float32)),
        Field::new("Tau_pt", FieldType::vector(FieldType::Float32)),
    ];
    let options = |f: &str| match f {
        "Jet_pt" => FieldOptions::default().with_counter("nJet"),
        "Muon_pt" => FieldOptions::default()
            .with_counter("nMuon")
            .with_counter_type(LeafType::UInt32),
        "Tau_pt" => FieldOptions::default()
            .with_counter("nTau")
            .with_counter_type(LeafType::UInt8),
        _ => FieldOptions::default(),
    };
    let layout = TreeLayout::new(&fields, options).unwrap();
    let names: Vec<&str> = layout.branches().iter().map(|b| b.name()).collect();
    assert_eq!(
        names,
        ["nJet", "Jet_pt", "nMuon", "Muon_pt", "nTau", "Tau_pt"]
    );
    let jets = [0u64, 2, 2, 3];
    let batch = [
        ColumnData::UInt32(&[2, 0, 1]),
        ColumnData::list(&jets, ColumnData::Float32(&[1.0, 2.0, 3.0])),
        ColumnData::list(&[0, 1, 1, 1], ColumnData::Float32(&[4.0])),
        ColumnData::list(&[0, 0, 0, 2], ColumnData::Float32(&[5.0, 6.0])),
    ];
    let (path, mut w) = writer("counters", &layout);
    // The field's values are not the lengths: refused, naming the list.
    let mut wrong = batch.clone();
    wrong[0] = ColumnData::UInt32(&[2, 1, 1]);
    let err = layout
        .with_branch_batches(&wrong, |b| w.extend(b))
        .unwrap_err();
    assert!(err.to_string().contains("Jet_pt"), "{err}");
    layout.with_branch_batches(&batch, |b| w.extend(b)).unwrap();
    // 300 items do not fit a UChar_t counter.
    let many: Vec<u64> = vec![0, 0, 0, 300];
    let items = vec![0.0f32; 300];
    let mut big = batch.clone();
    big[3] = ColumnData::list(&many, ColumnData::Float32(&items));
    let err = layout.with_branch_batches(&big, |_| Ok(())).unwrap_err();
    assert!(err.to_string().contains("300 items"), "{err}");
    w.close().unwrap();

    let t = TTreeReader::open(&path, "Events").unwrap();
    let cols = t.read(&["nJet", "nMuon", "nTau", "Jet_pt"], 0..3).unwrap();
    assert_eq!(cols[0].1, Array::UInt32(vec![2, 0, 1]));
    assert_eq!(cols[1].1, Array::UInt32(vec![1, 0, 0]));
    assert_eq!(cols[2].1, Array::UInt8(vec![0, 0, 2]));
    assert_eq!(
        cols[3].1,
        Array::List {
            offsets: jets.to_vec(),
            values: Box::new(Array::Float32(vec![1.0, 2.0, 3.0]))
        }
    );
    // A counter must be an integer.
    let float_counter = |_: &str| FieldOptions::default().with_counter_type(LeafType::Float32);
    assert!(TreeLayout::new(&fields[1..2], float_counter).is_err());
    std::fs::remove_file(&path).ok();
}

#[test]
fn fields_trees_cannot_hold_are_named() {
    let optional = [Field::new("o", FieldType::optional(FieldType::Int32))];
    let err = TreeLayout::new(&optional, |_| FieldOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("field o: a std::optional"),
        "{err}"
    );
    // Two fields making the same branch.
    let clash = [
        Field::new("x", FieldType::vector(FieldType::Float32)),
        Field::new("nx", FieldType::Int32),
    ];
    let err = TreeLayout::new(&clash, |_| FieldOptions::default()).unwrap_err();
    assert!(err.to_string().contains("branch called nx"), "{err}");
}
