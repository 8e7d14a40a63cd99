//! The `deppy` command line: parses arguments, calls the library, prints, maps errors to exit
//! codes (0 success, 1 unsatisfiable or invalid catalog, 2 bad input or usage, 3 the solver's
//! budget ran out). An error in an input file is printed as a diagnostic with the offending
//! source lines.

// No panics from input: library and CLI code may not unwrap, expect or index unchecked;
// the few places that index carry an `allow` with a comment proving the invariant.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of the system allocator: resolution makes millions of small allocations
/// (Datalog tuples, candidate lists); docs/performance.md has the measurement.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let color = args.color().stderr_colored();
    let style = if color {
        env_logger::WriteStyle::Always
    } else {
        env_logger::WriteStyle::Never
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp(None)
        .write_style(style)
        .init();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprint!("{}", cli::diagnostic::render(&err, color));
            ExitCode::from(cli::EXIT_BAD_INPUT)
        }
    }
}
