//! Progress bars on stderr (indicatif) for the library's [`deppy::advanced::progress::Progress`]
//! reports. A bar is drawn only when stderr is a terminal, and only once the work has taken
//! [`DELAY`]: quick commands and piped output show nothing.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use deppy::advanced::progress::{Progress, Task};

/// How long work runs before a bar appears.
pub const DELAY: Duration = Duration::from_millis(300);

/// [`DELAY`], or `DEPPY_PROGRESS_DELAY_MS` when set (tests force the bar with 0).
fn delay() -> Duration {
    std::env::var("DEPPY_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DELAY, Duration::from_millis)
}

/// A bar (or spinner) that appears after [`DELAY`] on a terminal, and is cleared when
/// dropped.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar for library progress reports; `message` says what is done.
    pub fn new(message: &'static str) -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_message(message);
        Bar::show_later(&bar);
        Bar { bar }
    }

    /// A spinner for work that reports no progress.
    pub fn spinner(message: &'static str) -> Bar {
        let bar = Bar::new(message);
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.bar.set_style(style);
        }
        bar
    }

    /// After [`delay`], draws `bar` on stderr if it is a terminal and the work goes on.
    fn show_later(bar: &ProgressBar) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = bar.clone();
        let wait = delay();
        std::thread::spawn(move || {
            std::thread::sleep(wait);
            if !bar.is_finished() {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(Duration::from_millis(100));
            }
        });
    }
}

impl Progress for Bar {
    fn update(&self, task: Task, done: u64, total: u64) {
        if done == 0 {
            let template = match task {
                Task::LoadCatalogs => {
                    "{spinner} {msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {elapsed}"
                }
                Task::CheckBundles => {
                    "{spinner} {msg} [{bar:30}] {pos}/{len} bundles {elapsed} (eta {eta})"
                }
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                self.bar.set_style(style.progress_chars("=> "));
            }
            self.bar.set_length(total);
        }
        self.bar.set_position(done);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
