//! The ADL benchmark's eight queries with rootweave's analysis layer from Rust, all booked
//! in one graph (the same expressions as `bench/adl.py`), printing every histogram's bins,
//! flow bins and entries as JSON.
//!
//! ```sh
//! cargo run --release --example adl -- FILE... [--tree Events] [--btag Jet_btag] [--threads N]
//!     [--only q1|...|q8]
//! ```

use std::collections::BTreeMap;
use std::time::Instant;

use rootweave::analysis::{Booked, Frame, Model, ResultValue};
use rootweave::dataset::{Dataset, Source};
use rootweave::ReadOptions;

const P4: &str = "ROOT::Math::PtEtaPhiMVector";

/// The four momentum components of the `k`-th particle of every combination.
fn take(prefix: &str, combos: &str, k: usize) -> String {
    ["pt", "eta", "phi", "mass"]
        .map(|c| format!("Take({prefix}_{c}, {combos}[{k}])"))
        .join(", ")
}

/// The mass of the pairs of `combos`, through four-vectors in double precision.
fn pair_mass(prefix: &str, combos: &str) -> String {
    format!(
        "Map({}, {}, [](float pt1, float eta1, float phi1, float m1, float pt2, float eta2, \
         float phi2, float m2) {{ return ({P4}(pt1, eta1, phi1, m1) + {P4}(pt2, eta2, phi2, m2)).M(); }})",
        take(prefix, combos, 0),
        take(prefix, combos, 1)
    )
}

/// True for a jet (`eta`, `phi`) within dR < 0.4 of a lepton of pt > 10 of `kind`.
fn lepton_near(kind: &str) -> String {
    format!(
        "Any(Map({kind}_eta, {kind}_phi, {kind}_pt, [&](float e, float p, float pt) \
         {{ return pt > 10 && ROOT::VecOps::DeltaR(eta, e, phi, p) < 0.4f; }}))"
    )
}

/// Books the eight queries on `df`, or only query `only` (`q1` ... `q8`; `all` for all).
fn book(df: &Frame, btag: &str, only: &str) -> rootweave::Result<BTreeMap<&'static str, Booked>> {
    let h = |name, bins, min, max| Model::regular(name, "", bins, min, max);
    let want = |q: &str| only == "all" || q.starts_with(only);
    let mut out = BTreeMap::new();
    if want("q1") {
        out.insert("q1", df.histo1d(h("q1", 100, 0.0, 200.0), "MET_pt", None)?);
    }
    if want("q2") {
        out.insert("q2", df.histo1d(h("q2", 100, 15.0, 60.0), "Jet_pt", None)?);
    }
    let q3 = df.define("q3_pt", "Jet_pt[abs(Jet_eta) < 1]")?;
    if want("q3") {
        out.insert("q3", q3.histo1d(h("q3", 100, 15.0, 60.0), "q3_pt", None)?);
    }
    let q4 = df.filter("Sum(Jet_pt > 40) >= 2", None)?;
    if want("q4") {
        out.insert("q4", q4.histo1d(h("q4", 100, 0.0, 200.0), "MET_pt", None)?);
    }
    let q5 = df
        .filter("nMuon >= 2", None)?
        .define("q5_c", "Combinations(Muon_pt, 2)")?
        .define("q5_m", &pair_mass("Muon", "q5_c"))?
        .define(
            "q5_os",
            "Take(Muon_charge, q5_c[0]) != Take(Muon_charge, q5_c[1])",
        )?
        .filter("Sum(q5_os && q5_m > 60 && q5_m < 120) > 0", None)?;
    if want("q5") {
        out.insert("q5", q5.histo1d(h("q5", 100, 0.0, 200.0), "MET_pt", None)?);
    }
    let trijets: Vec<String> = (0..3)
        .map(|k| format!("Construct<{P4}>({})", take("Jet", "q6_c", k)))
        .collect();
    let q6 = df
        .filter("nJet >= 3", None)?
        .define("q6_c", "Combinations(Jet_pt, 3)")?
        .define("q6_t", &trijets.join(" + "))?
        .define(
            "q6_best",
            &format!("ArgMin(abs(Map(q6_t, [](const {P4}& t) {{ return t.M(); }}) - 172.5))"),
        )?
        .define("q6_pt", "q6_t[q6_best].Pt()")?
        .define(
            "q6_btag",
            &format!(
                "std::max(std::max(Take({btag}, q6_c[0])[q6_best], Take({btag}, q6_c[1])[q6_best]), \
                 Take({btag}, q6_c[2])[q6_best])"
            ),
        )?;
    if want("q6a") {
        out.insert("q6a", q6.histo1d(h("q6a", 100, 15.0, 40.0), "q6_pt", None)?);
    }
    if want("q6b") {
        out.insert("q6b", q6.histo1d(h("q6b", 100, 0.0, 1.0), "q6_btag", None)?);
    }
    let near = format!(
        "Map(Jet_eta, Jet_phi, [&](float eta, float phi) {{ return {} || {}; }})",
        lepton_near("Muon"),
        lepton_near("Electron")
    );
    let q7 = df.define("q7_ht", &format!("Sum(Jet_pt[Jet_pt > 30 && !{near}])"))?;
    if want("q7") {
        out.insert("q7", q7.histo1d(h("q7", 100, 15.0, 200.0), "q7_ht", None)?);
    }
    let mut q8 = df.clone();
    for c in ["pt", "eta", "phi", "mass", "charge"] {
        q8 = q8.define(
            &format!("l_{c}"),
            &format!("Concatenate(Electron_{c}, Muon_{c})"),
        )?;
    }
    let q8 = q8
        .define("l_flavour", "Concatenate(Electron_charge * 0, Muon_charge * 0 + 1)")?
        .filter("l_pt.size() >= 3", None)?
        .define("q8_c", "Combinations(l_pt, 2)")?
        .define(
            "q8_sfos",
            "Take(l_flavour, q8_c[0]) == Take(l_flavour, q8_c[1]) && \
             Take(l_charge, q8_c[0]) != Take(l_charge, q8_c[1])",
        )?
        .filter("Sum(q8_sfos) > 0", None)?
        .define("q8_m", &pair_mass("l", "q8_c"))?
        .define("q8_best", "ArgMin(Where(q8_sfos, abs(q8_m - 91.2), 1e300))")?
        .define("q8_i1", "q8_c[0][q8_best]")?
        .define("q8_i2", "q8_c[1][q8_best]")?
        .define(
            "q8_lead",
            "ArgMax(Where(Enumerate(l_pt) != q8_i1 && Enumerate(l_pt) != q8_i2, l_pt, -1.f))",
        )?
        .define(
            "q8_mt",
            "sqrt(2.0 * l_pt[q8_lead] * MET_pt * (1.0 - cos(ROOT::VecOps::DeltaPhi(l_phi[q8_lead], MET_phi))))",
        )?;
    if want("q8") {
        out.insert("q8", q8.histo1d(h("q8", 100, 0.0, 200.0), "q8_mt", None)?);
    }
    Ok(out)
}

/// The allocator of the CLI and of the Python module, whose runs this example mirrors.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> rootweave::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |flag: &str, default: &str| match args.iter().position(|a| a == flag) {
        Some(i) => {
            let value = args.get(i + 1).cloned().unwrap_or_default();
            args.drain(i..(i + 2).min(args.len()));
            value
        }
        None => default.to_string(),
    };
    let tree = option("--tree", "Events");
    let btag = option("--btag", "Jet_btag");
    let threads: usize = option("--threads", "0").parse().expect("--threads N");
    let only = option("--only", "all");
    let sources = args.iter().map(|f| Source::new(f, Some(&tree))).collect();
    let start = Instant::now();
    let df = Frame::new(Dataset::new(
        sources,
        ReadOptions::default().with_threads(threads),
    )?);
    let booked = book(&df, &btag, &only)?;
    let mut json = Vec::new();
    for (name, result) in &booked {
        let ResultValue::Histogram(h) = result.value()? else {
            unreachable!("histograms were booked")
        };
        let n = h.cells.len();
        let bins: Vec<String> = h.cells[1..n - 1].iter().map(|v| v.to_string()).collect();
        json.push(format!(
            "\"{name}\": {{\"bins\": [{}], \"under\": {}, \"over\": {}, \"entries\": {}}}",
            bins.join(", "),
            h.cells[0],
            h.cells[n - 1],
            h.entries
        ));
    }
    println!("{{{}}}", json.join(", "));
    eprintln!(
        "{only} in one graph: {:.3} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
