//! A statistic of weighted values (ROOT's `TStatistic`): their count, sums of weights and
//! of weighted values, the weighted sum of squared deviations, extremes; filled and merged
//! as ROOT fills and merges one, and written as ROOT 6.40 streams one.

use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::Result;
use crate::streamer::{attribute_layouts, code, Element, ObjectStream, StreamerInfo};

/// The sums ROOT's `TStatistic` keeps, under its members' names.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistic {
    /// The name (RDataFrame's `Stats` leaves it empty).
    pub name: String,
    /// `fN`: the values counted (those of nonzero weight).
    pub n: i64,
    /// `fW`: the sum of weights.
    pub w: f64,
    /// `fW2`: the sum of squared weights.
    pub w2: f64,
    /// `fM`: the sum of weighted values.
    pub m: f64,
    /// `fM2`: the weighted sum of squared deviations from the mean.
    pub m2: f64,
    /// `fMin`: the smallest value (the largest double while empty).
    pub min: f64,
    /// `fMax`: the largest value (minus the largest double while empty).
    pub max: f64,
}

impl Default for Statistic {
    fn default() -> Self {
        Statistic {
            name: String::new(),
            n: 0,
            w: 0.0,
            w2: 0.0,
            m: 0.0,
            m2: 0.0,
            min: f64::MAX,
            max: -f64::MAX,
        }
    }
}

impl Statistic {
    /// Adds `value` of weight `weight` as `TStatistic::Fill` does: a weight of zero, or one
    /// that brings the sum of weights to zero, adds nothing to the count and the sums of
    /// weights; the squared deviations are updated from the second value on.
    pub fn fill(&mut self, value: f64, weight: f64) {
        if weight == 0.0 {
            return;
        }
        let total = self.w + weight;
        self.m += weight * value;
        self.min = if value < self.min { value } else { self.min };
        self.max = if value > self.max { value } else { self.max };
        if total == 0.0 {
            return;
        }
        self.n += 1;
        if self.w != 0.0 {
            let r = total * value - self.m;
            self.m2 += weight * r * r / (total * self.w);
        }
        self.w = total;
        self.w2 += weight * weight;
    }

    /// Adds `other`'s values as `TStatistic::Merge` adds another statistic after this one
    /// (an empty one, either side, changes nothing).
    pub fn merge(&mut self, other: &Statistic) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = Statistic {
                name: std::mem::take(&mut self.name),
                ..other.clone()
            };
            return;
        }
        let t = other.w / self.w * self.m - other.m;
        self.m2 += other.m2 + self.w / (other.w * (other.w + self.w)) * t * t;
        self.m += other.m;
        self.w += other.w;
        self.w2 += other.w2;
        self.n += other.n;
        self.min = if other.min < self.min {
            other.min
        } else {
            self.min
        };
        self.max = if other.max > self.max {
            other.max
        } else {
            self.max
        };
    }

    /// The statistic streamed as ROOT streams a `TStatistic` (version 3).
    pub fn to_payload(&self) -> Vec<u8> {
        let mut b = ObjectStream::default();
        b.begin_version(3);
        b.tobject(0);
        b.tstring(&self.name);
        b.i64(self.n);
        for v in [self.w, self.w2, self.m, self.m2, self.min, self.max] {
            b.f64(v);
        }
        b.end();
        b.into_bytes()
    }

    /// The class layouts a file holding a statistic describes: `TStatistic` (version 3)
    /// and `TObject`.
    pub fn layouts() -> Vec<StreamerInfo> {
        let mut elements = vec![
            Element::base("TObject", 1),
            Element::tstring("fName"),
            Element::basic("fN", code::LONG64),
        ];
        for name in ["fW", "fW2", "fM", "fM2", "fMin", "fMax"] {
            elements.push(Element::basic(name, code::DOUBLE));
        }
        let mut out = vec![StreamerInfo::new("TStatistic", 3, 0x3b8f_ba6d, elements)];
        out.extend(
            attribute_layouts()
                .into_iter()
                .filter(|l| l.class_name == "TObject"),
        );
        out
    }
}

/// Writes `statistic` into directory `dir` of `file` as a `TStatistic` under the key
/// `name`, and adds the class layouts it needs to the file's StreamerInfo record.
pub fn write_statistic(
    file: &FileWriter,
    dir: DirectoryId,
    name: &str,
    statistic: &Statistic,
) -> Result<KeyInfo> {
    file.add_streamer_infos(Statistic::layouts());
    file.write_object_in(dir, "TStatistic", name, "", &statistic.to_payload(), true)
}

#[cfg(test)]
mod tests {
    use super::Statistic;

    /// Filled one by one or as two merged halves, as ROOT's `Fill` and `Merge` compute
    /// them: the mean and the sum of squared deviations of 1, 2, 3, 4 (weights 1, 1, 2, 0).
    #[test]
    fn fills_and_merges_give_the_weighted_moments() {
        let values = [(1.0, 1.0), (2.0, 1.0), (3.0, 2.0), (4.0, 0.0)];
        let mut all = Statistic::default();
        values.iter().for_each(|&(v, w)| all.fill(v, w));
        assert_eq!((all.n, all.w, all.w2, all.m), (3, 4.0, 6.0, 9.0));
        assert!((all.m2 - 2.75).abs() < 1e-12, "{}", all.m2);
        assert_eq!((all.min, all.max), (1.0, 3.0));
        let (mut a, mut b) = (Statistic::default(), Statistic::default());
        values[..2].iter().for_each(|&(v, w)| a.fill(v, w));
        values[2..].iter().for_each(|&(v, w)| b.fill(v, w));
        a.merge(&b);
        assert_eq!(
            (a.n, a.w, a.w2, a.m, a.min, a.max),
            (3, 4.0, 6.0, 9.0, 1.0, 3.0)
        );
        assert!((a.m2 - 2.75).abs() < 1e-12, "{}", a.m2);
        let mut empty = Statistic::default();
        empty.merge(&Statistic::default());
        assert_eq!(empty, Statistic::default());
    }
}
