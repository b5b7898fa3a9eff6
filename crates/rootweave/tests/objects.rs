//! Keyed objects by path: a `std::string` key, histograms and a profile with their contents
//! and errors as ROOT computes them, STL containers inside objects (maps streamed
//! memberwise); bad payloads give errors naming the file, never panics. (Every histogram
//! of the corpus is compared with ROOT bit for bit in tests/python/test_objects.py.)

mod common;

use std::sync::Arc;

use common::{corpus_file, test_data};
use rootweave::container::read_streamers;
use rootweave::container::RootFile;
use rootweave::io::MemoryFile;
use rootweave::objects::{find_key, read_object, Histogram, Object, Value};

fn object(file: &RootFile, path: &[&str]) -> rootweave::Result<Object> {
    let streamers = read_streamers(file)?;
    read_object(file, &streamers, &find_key(file, path)?)
}

#[test]
fn a_string_key_reads_as_its_text() {
    let file = RootFile::open(test_data("string-example.root")).unwrap();
    let o = object(&file, &["FileSummaryRecord"]).unwrap();
    assert_eq!(o.class, "string");
    match o.get("value") {
        Some(Value::Str(s)) => {
            assert!(s.starts_with("{\"LumiCounter.eventsByRun\""), "{s}");
            assert_eq!(s.len(), 126);
        }
        other => panic!("{other:?}"),
    }
    let missing = object(&file, &["nothing"]).unwrap_err().to_string();
    assert!(missing.contains("string-example.root") && missing.contains("nothing"));
}

#[test]
fn corrupt_and_truncated_payloads_give_errors_naming_the_file() {
    let path = test_data("string-example.root");
    let bytes = std::fs::read(&path).unwrap();
    let file = RootFile::open(&path).unwrap();
    let key = find_key(&file, &["FileSummaryRecord"]).unwrap();
    let start = key.payload_offset() as usize;
    for (at, byte) in [(0, 0xff), (0, 0x00), (1, 0xff)] {
        let mut broken = bytes.clone();
        broken[start + at] = byte;
        let file = RootFile::from_source(Arc::new(MemoryFile::from_bytes(broken))).unwrap();
        if let Err(e) = object(&file, &["FileSummaryRecord"]) {
            assert!(e.to_string().contains("<memory>"), "{e}");
        }
    }
    let cut = RootFile::from_source(Arc::new(MemoryFile::from_bytes(
        bytes[..start + 20].to_vec(),
    )));
    if let Ok(file) = cut {
        assert!(object(&file, &["FileSummaryRecord"]).is_err());
    }
}

#[test]
fn histograms_and_profiles_give_roots_contents_and_errors() {
    let Some(path) = corpus_file("uproot-hepdata-example.root") else {
        return;
    };
    let file = RootFile::open(path).unwrap();
    let h = Histogram::from_object(&object(&file, &["hpx"]).unwrap()).unwrap();
    assert_eq!(
        (h.class.as_str(), h.axes.len(), h.axes[0].bins),
        ("TH1F", 1, 100)
    );
    assert_eq!(
        (h.axes[0].min, h.axes[0].max, h.entries),
        (-4.0, 4.0, 75000.0)
    );
    let contents: Vec<f64> = (0..6).map(|c| h.content(c)).collect();
    assert_eq!(contents, [2.0, 2.0, 3.0, 1.0, 1.0, 2.0]);
    assert_eq!(h.content(101), 4.0);
    // No sums of squared weights: errors are square roots of the contents.
    assert_eq!(h.error(2), 3f64.sqrt());
    assert_eq!(h.axes[0].low_edge(2), -4.0 + 0.08);
    let edges = h.axes[0].all_edges();
    assert_eq!((edges.len(), edges[0], edges[100]), (101, -4.0, 4.0));

    let p = Histogram::from_object(&object(&file, &["hprof;1"]).unwrap()).unwrap();
    let profile = p.profile.as_ref().unwrap();
    for cell in 0..p.cells.len() {
        let entries = profile.bin_entries[cell];
        let mean = if entries == 0.0 {
            0.0
        } else {
            p.cells[cell] / entries
        };
        assert_eq!(p.content(cell).to_bits(), mean.to_bits(), "cell {cell}");
        if entries > 0.0 {
            let spread = (profile.sum_wy2[cell] / entries - mean * mean).abs().sqrt();
            let neff = p.effective_entries(cell);
            assert_eq!(p.error(cell).to_bits(), (spread / neff.sqrt()).to_bits());
        }
    }
    let h2 = Histogram::from_object(&object(&file, &["hpxpy"]).unwrap()).unwrap();
    assert_eq!(h2.cells.len(), 42 * 42);
}

#[test]
fn stl_containers_inside_objects_read_memberwise_too() {
    let Some(path) = corpus_file("uproot-issue431.root") else {
        return;
    };
    let file = RootFile::open(path).unwrap();
    let head = object(&file, &["Head"]).unwrap();
    let Some(Value::Map(entries)) = head.get("map<string,string>") else {
        panic!("{:?}", head.members);
    };
    assert_eq!(entries.len(), 34);
    assert_eq!(
        entries[0],
        (Value::Str("DAQ".into()), Value::Str("394".into()))
    );
    let Some(path) = corpus_file("uproot-issue49.root") else {
        return;
    };
    let file = RootFile::open(path).unwrap();
    let fit = object(&file, &["fitResult"]).unwrap();
    let Some(Value::List(history)) = fit.get("_statusHistory") else {
        panic!("{:?}", fit.get("_statusHistory"));
    };
    assert_eq!(
        history[0],
        Value::Pair(Box::new((Value::Str("MINIMIZE".into()), Value::Int(0))))
    );
}

/// A 1-D histogram of three bins and labels, filled with `values` at weight 1.
fn labelled_histogram(values: &[f64]) -> Histogram {
    let axis = rootweave::objects::Axis {
        name: "xaxis".into(),
        title: "x title".into(),
        bins: 3,
        min: 0.0,
        max: 3.0,
        edges: None,
        labels: Some(vec!["a".into(), String::new(), "c".into()]),
        can_extend: false,
        range: None,
    };
    let mut cells = vec![0.0; 5];
    for v in values {
        cells[((v / 1.0).floor() as i64 + 1).clamp(0, 4) as usize] += 1.0;
    }
    let mut h = Histogram {
        class: "TH1D".into(),
        name: "h".into(),
        title: "a title".into(),
        axes: vec![axis],
        content_title: "entries".into(),
        sumw2: Some(cells.clone()),
        cells,
        entries: 0.0,
        stats: Vec::new(),
        profile: None,
    };
    h.reset_statistics(Some(values.len() as f64));
    h
}

#[test]
fn written_histograms_read_back_with_their_bins_and_statistics() {
    let dir = std::env::temp_dir().join(format!("rootweave-hist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("h.root");
    let h = labelled_histogram(&[0.5, 0.7, 2.5, 3.5, -1.0]);
    // Sums over the bins in range at their centres, as ROOT's ResetStats makes them.
    assert_eq!(h.stat("fTsumw"), 3.0);
    assert_eq!(h.stat("fTsumwx"), 0.5 + 0.5 + 2.5);
    assert_eq!(h.mean(0), 3.5 / 3.0);
    let writer = rootweave::container::FileWriter::create(&path, Default::default()).unwrap();
    let dir_id = writer.mkdir("plots/one").unwrap();
    rootweave::objects::write_histogram(&writer, dir_id, &h).unwrap();
    rootweave::objects::write_string(&writer, dir_id, "note", "some text").unwrap();
    writer.close().unwrap();

    let file = RootFile::open(&path).unwrap();
    let back = Histogram::from_object(&object(&file, &["plots", "one", "h"]).unwrap()).unwrap();
    assert_eq!(back, h);
    assert_eq!(back.axes[0].labels.as_deref().unwrap(), ["a", "", "c"]);
    let note = object(&file, &["plots", "one", "note"]).unwrap();
    assert_eq!(note.str("fString"), Some("some text"));

    let mut wrong = h.clone();
    wrong.cells.pop();
    let writer = rootweave::container::FileWriter::create(&path, Default::default()).unwrap();
    let e = rootweave::objects::write_histogram(
        &writer,
        rootweave::container::DirectoryId::TOP,
        &wrong,
    );
    assert!(e.unwrap_err().to_string().contains("4 cells"));
    wrong.class = "TH5X".into();
    let e = rootweave::objects::write_histogram(
        &writer,
        rootweave::container::DirectoryId::TOP,
        &wrong,
    );
    assert!(e.unwrap_err().to_string().contains("TH5X"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn written_graphs_read_back_with_their_points() {
    let dir = std::env::temp_dir().join(format!("rootweave-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.root");
    let g = rootweave::objects::Graph {
        name: "g".into(),
        title: "y vs x".into(),
        x: vec![1.0, 2.5, -3.0],
        y: vec![0.5, f64::MAX, 7.0],
        errors: None,
    };
    let with_errors = rootweave::objects::Graph {
        name: "e".into(),
        errors: Some([
            vec![0.1; 3],
            vec![0.2; 3],
            vec![0.3; 3],
            vec![0.25, 0.5, 1.0],
        ]),
        ..g.clone()
    };
    let writer = rootweave::container::FileWriter::create(&path, Default::default()).unwrap();
    let top = rootweave::container::DirectoryId::TOP;
    rootweave::objects::write_graph(&writer, top, &g).unwrap();
    rootweave::objects::write_graph(&writer, top, &with_errors).unwrap();
    let mut wrong = g.clone();
    wrong.y.pop();
    let e = rootweave::objects::write_graph(&writer, top, &wrong).unwrap_err();
    assert!(e.to_string().contains("3 abscissas and 2 ordinates"), "{e}");
    let mut wrong = with_errors.clone();
    wrong.errors.as_mut().unwrap()[2].push(1.0);
    let e = rootweave::objects::write_graph(&writer, top, &wrong).unwrap_err();
    assert!(e.to_string().contains("4 errors for 3 points"), "{e}");
    writer.close().unwrap();

    let file = RootFile::open(&path).unwrap();
    let back = object(&file, &["g"]).unwrap();
    assert_eq!(back.class, "TGraph");
    assert_eq!(back.str("fName"), Some("g"));
    assert_eq!(back.str("fTitle"), Some("y vs x"));
    assert_eq!(back.get("fNpoints"), Some(&Value::Int(3)));
    let floats = |o: &Object, member: &str| match o.get(member) {
        Some(Value::Floats(v)) => v.clone(),
        other => panic!("{member}: {other:?}"),
    };
    assert_eq!(
        (floats(&back, "fX"), floats(&back, "fY")),
        (g.x.clone(), g.y.clone())
    );
    let back = object(&file, &["e"]).unwrap();
    assert_eq!(back.class, "TGraphAsymmErrors");
    assert_eq!(floats(&back, "fY"), g.y);
    let errors = with_errors.errors.unwrap();
    for (member, values) in ["fEXlow", "fEXhigh", "fEYlow", "fEYhigh"]
        .iter()
        .zip(errors)
    {
        assert_eq!(floats(&back, member), values);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn histograms_add_as_hadd_adds_them() {
    let mut a = labelled_histogram(&[0.5, 1.5]);
    a.sumw2 = None;
    let b = labelled_histogram(&[1.5, 2.5, 2.7]);
    a.add(&b).unwrap();
    assert_eq!(a.cells, [0.0, 1.0, 2.0, 2.0, 0.0]);
    // Without squared weights of its own, a histogram counts its contents as them.
    assert_eq!(a.sumw2.as_deref(), Some(&[0.0, 1.0, 2.0, 2.0, 0.0][..]));
    assert_eq!(a.entries, 5.0);
    assert_eq!(a.stat("fTsumw"), 5.0);
    let mut other_binning = b.clone();
    other_binning.axes[0].max = 4.0;
    let before = a.clone();
    let e = a.add(&other_binning).unwrap_err();
    assert!(e.contains("different binning (fXaxis)"), "{e}");
    assert_eq!(a, before);
}

#[test]
fn objects_are_copied_under_keys_of_any_length_but_trees_are_not() {
    let source = RootFile::open(test_data("string-example.root")).unwrap();
    let streamers = read_streamers(&source).unwrap();
    let key = find_key(&source, &["FileSummaryRecord"]).unwrap();
    let dir = std::env::temp_dir().join(format!("rootweave-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("copy.root");
    let writer = rootweave::container::FileWriter::create(&path, Default::default()).unwrap();
    let sub = writer.mkdir("kept").unwrap();
    for (d, name) in [
        (rootweave::container::DirectoryId::TOP, "FileSummaryRecord"),
        (sub, "a_much_longer_name_than_before"),
    ] {
        rootweave::objects::copy_object(&source, &streamers, &key, &writer, d, name).unwrap();
    }
    let hzz = RootFile::open(test_data("uproot-HZZ.root")).unwrap();
    let hzz_streamers = read_streamers(&hzz).unwrap();
    let tree = find_key(&hzz, &["events"]).unwrap();
    let e = rootweave::objects::copy_object(&hzz, &hzz_streamers, &tree, &writer, sub, "events");
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("points to other records"));
    writer.close().unwrap();
    let copy = RootFile::open(&path).unwrap();
    let original = object(&source, &["FileSummaryRecord"]).unwrap();
    for parts in [
        &["FileSummaryRecord"][..],
        &["kept", "a_much_longer_name_than_before"],
    ] {
        assert_eq!(
            object(&copy, parts).unwrap().get("value"),
            original.get("value")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every member of an object read, nested objects and lists included (none `Unread`).
fn fully_read(o: &Object) -> Result<(), String> {
    fn value(v: &Value) -> Result<(), String> {
        match v {
            Value::Unread(why) => Err(why.clone()),
            Value::Object(o) => fully_read(o),
            Value::List(items) => items.iter().try_for_each(value),
            _ => Ok(()),
        }
    }
    o.members.iter().try_for_each(|(_, v)| value(v))
}

#[test]
fn arrays_of_objects_counted_by_a_member_are_read() {
    // Streamer type 501: `TSplinePoly3* fPoly //[fNp]`, `TString* fExpr //[fNoper]`.
    for (file, path, counter, member) in [
        ("uproot-issue-1275.root", &["spline"][..], "fNp", "fPoly"),
        (
            "uproot-issue-181.root",
            &["correctedE"][..],
            "fNoper",
            "fExpr",
        ),
    ] {
        let Some(path_on_disk) = corpus_file(file) else {
            return;
        };
        let f = RootFile::open(path_on_disk).unwrap();
        let o = object(&f, path).unwrap();
        fully_read(&o).unwrap_or_else(|e| panic!("{file}: {e}"));
        let n = o.int(counter).unwrap();
        if let (Some(Value::List(items)), "fPoly") = (o.get(member), member) {
            // The spline's knots: y = x * x at x = 1, 2, ...
            let knots: Vec<(f64, f64)> = items
                .iter()
                .filter_map(|p| match p {
                    Value::Object(p) => match (p.get("fX")?, p.get("fY")?) {
                        (Value::Float(x), Value::Float(y)) => Some((*x, *y)),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            assert_eq!(&knots[..2], &[(1.0, 1.0), (2.0, 4.0)]);
        }
        match o.get(member) {
            Some(Value::List(items)) => assert_eq!(items.len() as i64, n, "{file}"),
            other => panic!("{file}: {other:?}"),
        }
    }
}

#[test]
fn root_classes_files_do_not_describe_are_read() {
    let Some(path) = corpus_file("uproot-issue-359.root") else {
        return;
    };
    let f = RootFile::open(path).unwrap();
    let m = object(&f, &["covmatrixCbin"]).unwrap();
    fully_read(&m).unwrap();
    assert_eq!((m.int("fNrows"), m.int("fNelems")), (Some(29), Some(841)));
    let elements = m.numbers("fElements").unwrap();
    assert_eq!(elements.len(), 29 * 30 / 2);
    assert!(
        (elements[0] - 6.39373261e-05).abs() < 1e-12,
        "{}",
        elements[0]
    );
    let Some(path) = corpus_file("uproot-issue-861.root") else {
        return;
    };
    let f = RootFile::open(path).unwrap();
    let t = object(&f, &["LiveTime_0"]).unwrap();
    assert_eq!(t.int("fMilliSec"), Some(66_125_790));
}

#[test]
fn members_with_streamers_of_their_own_are_read() {
    // A TDatime member (its own streamer writes the date alone) and std::string members
    // of streamer type kStreamer (each in a frame of its own).
    let (Some(foo), Some(job)) = (
        corpus_file("uproot-issue-407.root"),
        corpus_file("uproot-issue475.root"),
    ) else {
        return;
    };
    let f = RootFile::open(foo).unwrap();
    let o = object(&f, &["foo"]).unwrap();
    fully_read(&o).unwrap();
    let f = RootFile::open(job).unwrap();
    let o = object(&f, &["Meta", "JobInfo"]).unwrap();
    fully_read(&o).unwrap();
    assert_eq!(o.str("m_jobOption"), Some(""));
    assert_eq!(o.str("m_offlineVersion"), Some("J14v1r1"));
}
