//! `Min` and `Max` as RDataFrame computes them: a running value, starting at the largest
//! (`Min`) or lowest (`Max`) double, that each value `v` replaces unless the running one is
//! strictly better (`std::min(v, best)`, `std::max(v, best)`). A NaN therefore replaces any
//! running value and is replaced by the next value: the result is not the smallest or largest
//! value once NaNs occur, and a `Max` of nothing but -inf is the lowest double. A partial
//! over a run of values records its effect on whatever running value comes before it, so that
//! partials of consecutive chunks added in order give the one-pass result.

/// The effect of a run of values on the running value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Extreme {
    /// No value: the running value is kept.
    Nothing,
    /// Values without a NaN: the running value becomes `step(best, m)`, `m` the run's own
    /// result from its first value.
    Step(f64),
    /// Values with a NaN: the running value becomes this, whatever it was.
    Reset(f64),
}

impl Extreme {
    /// The running value after `x`, for `Max` if `max` else `Min`.
    fn step(max: bool, best: f64, x: f64) -> f64 {
        let keep = if max { x < best } else { best < x };
        if keep {
            best
        } else {
            x
        }
    }

    /// This run followed by value `x`.
    pub fn push(&mut self, max: bool, x: f64) {
        *self = match *self {
            _ if x.is_nan() => Extreme::Reset(x),
            Extreme::Nothing => Extreme::Step(x),
            Extreme::Step(m) => Extreme::Step(Self::step(max, m, x)),
            Extreme::Reset(c) => Extreme::Reset(Self::step(max, c, x)),
        };
    }

    /// This run followed by the run `next`.
    pub fn then(&mut self, max: bool, next: Extreme) {
        *self = match (*self, next) {
            (a, Extreme::Nothing) => a,
            (_, Extreme::Reset(c)) => Extreme::Reset(c),
            (Extreme::Nothing, b) => b,
            (Extreme::Step(a), Extreme::Step(m)) => Extreme::Step(Self::step(max, a, m)),
            (Extreme::Reset(c), Extreme::Step(m)) => Extreme::Reset(Self::step(max, c, m)),
        };
    }

    /// The run as numbers, to travel between processes: `[]` (no value), `[m]` (a step) or
    /// `[m, 1]` (values with a NaN; `m` the running value after them).
    pub fn parts(self) -> Vec<f64> {
        match self {
            Extreme::Nothing => Vec::new(),
            Extreme::Step(m) => vec![m],
            Extreme::Reset(c) => vec![c, 1.0],
        }
    }

    /// The run [`Extreme::parts`] gave, or `None` if `numbers` are not such.
    pub fn from_parts(numbers: &[f64]) -> Option<Extreme> {
        match *numbers {
            [] => Some(Extreme::Nothing),
            [m] => Some(Extreme::Step(m)),
            [c, 1.0] => Some(Extreme::Reset(c)),
            _ => None,
        }
    }

    /// The result: the running value after the run, from the lowest double (`Max`) or the
    /// largest (`Min`).
    pub fn value(self, max: bool) -> f64 {
        let start = if max { f64::MIN } else { f64::MAX };
        match self {
            Extreme::Nothing => start,
            Extreme::Step(m) => Self::step(max, start, m),
            Extreme::Reset(c) => c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Extreme;

    /// The result of one pass over `xs`, as ROOT's helper runs on one thread.
    fn one_pass(max: bool, xs: &[f64]) -> f64 {
        let mut best = if max { f64::MIN } else { f64::MAX };
        for &x in xs {
            best = Extreme::step(max, best, x);
        }
        best
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn chunks_added_in_order_give_the_one_pass_result() {
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let values = [
            3.0, nan, -1.0, 7.0, -0.0, 0.0, nan, 2.0, -inf, inf, 5.0, nan, -2.0,
        ];
        for max in [false, true] {
            for len in 0..=values.len() {
                let xs = &values[..len];
                for cut in 0..=len {
                    for cut2 in cut..=len {
                        let mut total = Extreme::Nothing;
                        for part in [&xs[..cut], &xs[cut..cut2], &xs[cut2..]] {
                            let mut p = Extreme::Nothing;
                            part.iter().for_each(|&x| p.push(max, x));
                            total.then(max, p);
                        }
                        let want = one_pass(max, xs);
                        assert!(same(total.value(max), want), "{max} {xs:?} {cut} {cut2}");
                    }
                }
            }
        }
    }

    #[test]
    fn nan_and_infinities_give_root_s_results() {
        let run = |max, xs: &[f64]| {
            let mut p = Extreme::Nothing;
            xs.iter().for_each(|&x| p.push(max, x));
            p.value(max)
        };
        // A NaN replaces the running value; the values after it start again.
        assert_eq!(run(true, &[9.0, f64::NAN, 1.0, 2.0]), 2.0);
        assert!(run(false, &[1.0, f64::NAN]).is_nan());
        // Nothing beats the start: a Max of -inf alone is the lowest double.
        assert_eq!(run(true, &[f64::NEG_INFINITY]), f64::MIN);
        assert_eq!(run(false, &[f64::INFINITY]), f64::MAX);
        assert_eq!(run(true, &[]), f64::MIN);
        // Of equal values the last one: -0 after 0.
        assert!(run(true, &[0.0, -0.0]).is_sign_negative());
        assert!(run(false, &[-0.0, 0.0]).is_sign_positive());
    }
}
