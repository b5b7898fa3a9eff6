//! One batch filled into a partial histogram: the fields' values flattened (lists of
//! numbers, each value one fill), the weights spread over the values of their entry.

use super::{FillAxis, Partial};
use crate::array::Array;
use crate::error::{Error, Result};

/// The values of a field flattened, and for each entry where its values start (`len + 1`
/// offsets), `None` for a field of one value per entry.
fn flatten(array: &Array) -> Result<(Vec<f64>, Option<Vec<usize>>)> {
    fn leaf<'a>(a: &'a Array, offsets: &mut Option<Vec<usize>>) -> Result<&'a Array> {
        let (inner_offsets, values): (Vec<usize>, &Array) = match a {
            Array::List { offsets, values } | Array::Optional { offsets, values } => {
                (offsets.iter().map(|&o| o as usize).collect(), values)
            }
            Array::Fixed { size, values } => {
                let n = values.len() / (*size).max(1);
                ((0..=n).map(|i| i * size).collect(), values)
            }
            other => return Ok(other),
        };
        *offsets = Some(match offsets.take() {
            Some(outer) => outer.iter().map(|&o| inner_offsets[o]).collect(),
            None => inner_offsets,
        });
        leaf(values, offsets)
    }
    let mut offsets = None;
    let values = leaf(array, &mut offsets)?;
    let numbers: Vec<f64> = match values {
        Array::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        Array::Int8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Int64(v) => v.iter().map(|&x| x as f64).collect(),
        Array::UInt8(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::UInt64(v) => v.iter().map(|&x| x as f64).collect(),
        Array::Float32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Array::Float64(v) => v.clone(),
        _ => {
            return Err(Error::InvalidArgument(
                "only numbers and lists of numbers fill histograms, not strings, records or \
                 variants"
                    .into(),
            ))
        }
    };
    Ok((numbers, offsets))
}

/// Fills `partial` with one batch: `arrays` holds the fields, then the weight if any.
pub(super) fn fill_batch(
    partial: &mut Partial,
    axes: &[FillAxis],
    arrays: &[(String, Array)],
    weighted: bool,
) -> Result<()> {
    if let [axis] = axes {
        if let Some(done) = super::one_axis::fill_one_axis(partial, axis, arrays, weighted) {
            return done;
        }
    }
    fill_any(partial, axes, arrays, weighted)
}

/// The general loop: any number of axes, lists nested to any depth.
fn fill_any(
    partial: &mut Partial,
    axes: &[FillAxis],
    arrays: &[(String, Array)],
    weighted: bool,
) -> Result<()> {
    let dims = axes.len();
    let mut values = Vec::with_capacity(dims);
    let mut shape: Option<Option<Vec<usize>>> = None;
    for (name, array) in &arrays[..dims] {
        let (v, offsets) = flatten(array)?;
        match &shape {
            None => shape = Some(offsets),
            Some(first) if *first != offsets => {
                return Err(Error::InvalidArgument(format!(
                    "field '{name}' has another number of values per entry than '{}'",
                    arrays[0].0
                )))
            }
            Some(_) => {}
        }
        values.push(v);
    }
    let offsets = shape.flatten();
    let count = values[0].len();
    let weights: Option<Vec<f64>> = if weighted {
        let (name, array) = &arrays[dims];
        let (w, w_offsets) = flatten(array)?;
        Some(match (&offsets, w_offsets) {
            (_, Some(wo)) if Some(&wo) == offsets.as_ref() => w,
            (Some(o), None) => o
                .windows(2)
                .zip(&w)
                .flat_map(|(span, &x)| std::iter::repeat_n(x, span[1] - span[0]))
                .collect(),
            (None, None) => w,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "weight '{name}' is neither one value per entry nor one per value filled"
                )))
            }
        })
    } else {
        None
    };
    let strides = [
        1,
        axes[0].bins() + 2,
        (axes[0].bins() + 2) * axes.get(1).map_or(1, |a| a.bins() + 2),
    ];
    let p = partial;
    for i in 0..count {
        let w = weights.as_ref().map_or(1.0, |w| w[i]);
        let mut cell = 0;
        let mut inside = true;
        let mut xs = [0.0; 3];
        for d in 0..dims {
            let x = values[d][i];
            let c = axes[d].cell(x);
            inside &= c != 0 && c != axes[d].bins() + 1;
            cell += c * strides[d];
            xs[d] = x;
        }
        p.entries += 1.0;
        p.cells[cell] += w;
        if let Some(s) = p.sumw2.as_mut() {
            s[cell] += w * w;
        }
        if !inside {
            continue;
        }
        let s = &mut p.stats;
        let [x, y, z] = xs;
        s[0] += w;
        s[1] += w * w;
        s[2] += w * x;
        s[3] += w * x * x;
        if dims >= 2 {
            s[4] += w * y;
            s[5] += w * y * y;
            s[6] += w * x * y;
        }
        if dims == 3 {
            s[7] += w * z;
            s[8] += w * z * z;
            s[9] += w * x * z;
            s[10] += w * y * z;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill::Binning;

    #[test]
    fn lists_flatten_and_weights_spread_over_their_values() {
        let list = Array::List {
            offsets: vec![0, 2, 2, 3],
            values: Box::new(Array::Float32(vec![0.5, 1.5, 2.5])),
        };
        let (values, offsets) = flatten(&list).unwrap();
        assert_eq!(values, [0.5, 1.5, 2.5]);
        assert_eq!(offsets, Some(vec![0, 2, 2, 3]));
        let axis = FillAxis::new(Binning::Regular {
            bins: 3,
            min: 0.0,
            max: 3.0,
        });
        let mut p = Partial::new(5, true, 4);
        let arrays = vec![
            ("pt".to_string(), list),
            ("w".to_string(), Array::Float64(vec![2.0, 5.0, 3.0])),
        ];
        fill_batch(&mut p, &[axis], &arrays, true).unwrap();
        assert_eq!(p.cells, [0.0, 2.0, 2.0, 3.0, 0.0]);
        assert_eq!(p.sumw2.unwrap(), [0.0, 4.0, 4.0, 9.0, 0.0]);
        assert_eq!(p.entries, 3.0);
        assert_eq!(
            p.stats,
            [
                7.0,
                17.0,
                0.5 * 2.0 + 1.5 * 2.0 + 2.5 * 3.0,
                0.5 + 4.5 + 18.75
            ]
        );
        let strings = Array::String {
            offsets: vec![0, 1],
            bytes: b"a".to_vec(),
        };
        assert!(flatten(&strings).is_err());
    }

    #[test]
    fn the_one_axis_loop_gives_the_general_loops_bits() {
        let axis = FillAxis::new(Binning::Regular {
            bins: 7,
            min: -1.0,
            max: 2.5,
        });
        let values: Vec<f32> = (0..1000)
            .map(|i| ((i * 37 % 101) as f32) / 23.0 - 1.3)
            .collect();
        let weights: Vec<f64> = (0..100).map(|i| 0.1 + (i % 13) as f64 / 7.0).collect();
        let offsets: Vec<u64> = (0..=100).map(|i| i * 10).collect();
        let list = Array::List {
            offsets: offsets.clone(),
            values: Box::new(Array::Float32(values.clone())),
        };
        let nested = Array::List {
            offsets,
            values: Box::new(Array::Fixed {
                size: 1,
                values: Box::new(Array::Float32(values)),
            }),
        };
        let weight = ("w".to_string(), Array::Float64(weights));
        let mut fast = Partial::new(9, true, 4);
        let mut general = Partial::new(9, true, 4);
        fill_batch(
            &mut fast,
            std::slice::from_ref(&axis),
            &[("x".into(), list), weight.clone()],
            true,
        )
        .unwrap();
        fill_batch(&mut general, &[axis], &[("x".into(), nested), weight], true).unwrap();
        assert_eq!(fast.cells, general.cells);
        assert_eq!(fast.sumw2, general.sumw2);
        assert_eq!(fast.stats, general.stats);
        assert_eq!(fast.entries, 1000.0);
    }
}
