//! Progress of a long import: a bar with counts, rate and time left on a
//! terminal; nothing elsewhere (the summary lines say what was done).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub fn bar(what: &str, len: u64) -> ProgressBar {
    // Drawn on standard error only when it is a terminal.
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let style =
        ProgressStyle::with_template("{prefix:>18} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_prefix(what.to_string());
    bar
}

/// A count of items read, for a list whose length is not known ahead.
pub fn counter(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{prefix:>18} {pos} {per_sec}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    bar.set_style(style);
    bar.set_prefix(what.to_string());
    bar
}
