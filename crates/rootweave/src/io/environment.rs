//! Settings read from environment variables, for sources configured by programs that take
//! no options (the CLI, the Python package): a variable that is unset, blank or unreadable
//! counts as unset.

use std::time::Duration;

/// The variable's text, if set and not blank.
pub(crate) fn text(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// A duration given in seconds (`"2.5"`), if set, finite and positive.
pub(crate) fn seconds(name: &str) -> Option<Duration> {
    text(name)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
}

/// A count (`"3"`), if set and a whole number.
pub(crate) fn count(name: &str) -> Option<u32> {
    text(name).and_then(|v| v.trim().parse().ok())
}
