//! The progress bar of the long commands (`merge`, `convert`): drawn on a terminal only,
//! fed by the library's progress callbacks.

use std::io::IsTerminal;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

/// A callback taking work done and work in all.
pub type Callback = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// A progress bar drawn with `template` (indicatif's syntax) and the callback that moves
/// it, when stderr is a terminal; `None` otherwise.
pub fn bar(template: &str) -> Option<(ProgressBar, Callback)> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let moved = bar.clone();
    let callback: Callback = Arc::new(move |done, total| {
        moved.set_length(total);
        moved.set_position(done);
    });
    Some((bar, callback))
}
