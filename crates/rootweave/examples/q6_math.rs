//! The arithmetic of ADL query 6 alone, the floor of the analysis layer's Q6: every trijet
//! of every event summed as `PtEtaPhiMVector`s with ROOT's bits (the layer's own
//! four-vectors: each jet's Cartesian components found once, each sum converted to the
//! coordinates ROOT keeps only where they are used), the trijet of mass closest to 172.5
//! kept. Reads the jets with one thread and times the arithmetic apart from the reading.
//!
//! ```sh
//! cargo run --release --example q6_math -- FILE... [--tree Events]
//! ```

use std::time::{Duration, Instant};

use rootweave::analysis::column::P4;
use rootweave::array::Array;
use rootweave::dataset::{Dataset, Source};
use rootweave::parallel::ReadOptions;

fn main() -> rootweave::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut tree = "Events".to_string();
    if let Some(i) = args.iter().position(|a| a == "--tree") {
        tree = args[i + 1].clone();
        args.drain(i..i + 2);
    }
    let sources = args.iter().map(|p| Source::new(p, Some(&tree))).collect();
    let dataset = Dataset::new(sources, ReadOptions::default().with_threads(1))?;
    let fields = ["Jet_pt", "Jet_eta", "Jet_phi", "Jet_mass"];
    let math = std::sync::Mutex::new((Duration::ZERO, 0u64, 0.0f64));
    let start = Instant::now();
    dataset.for_each_unit(&fields, rootweave::analysis::STEP, |_, _, arrays| {
        let list = |k: usize| match &arrays[k].1 {
            Array::List { offsets, values } => match &**values {
                Array::Float32(v) => Ok((offsets, v)),
                _ => Err(rootweave::Error::InvalidArgument(
                    "jets are not floats".into(),
                )),
            },
            _ => Err(rootweave::Error::InvalidArgument(
                "jets are not lists".into(),
            )),
        };
        let (offsets, pt) = list(0)?;
        let (eta, phi, mass) = (list(1)?.1, list(2)?.1, list(3)?.1);
        let began = Instant::now();
        let (mut trijets, mut sum) = (0u64, 0.0f64);
        for w in offsets.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            let jets: Vec<P4> = (a..b)
                .map(|i| P4::new(pt[i] as f64, eta[i] as f64, phi[i] as f64, mass[i] as f64))
                .collect();
            let jet = |i: usize| jets[i - a];
            let mut best: Option<(f64, f64)> = None;
            for i in a..b {
                for j in i + 1..b {
                    for k in j + 1..b {
                        let t = jet(i).add(&jet(j)).add(&jet(k));
                        let d = (t.m() - 172.5).abs();
                        trijets += 1;
                        if best.is_none_or(|(closest, _)| d < closest) {
                            best = Some((d, t.pt()));
                        }
                    }
                }
            }
            sum += best.map_or(0.0, |(_, pt)| pt);
        }
        let mut m = math.lock().unwrap_or_else(|p| p.into_inner());
        m.0 += began.elapsed();
        m.1 += trijets;
        m.2 += sum;
        Ok(())
    })?;
    let (seconds, trijets, sum) = *math.lock().unwrap_or_else(|p| p.into_inner());
    println!(
        "{trijets} trijets: arithmetic {:.3} s, with the reading {:.3} s (sum of best pt {sum})",
        seconds.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
