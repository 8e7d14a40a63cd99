//! The `deppy` command line: parses arguments, calls the library, prints, maps errors to exit
//! codes. The table of exit codes is `cli::EXIT_CODES` (`deppy --help` prints it); errors
//! print as `error: …`, with the offending source lines when they are about a place in an
//! input file (`cli::diagnostic`).

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
/// (Datalog tuples, candidate lists); docs/performance-history.md has the measurement.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::budget::start();
    let args = cli::Cli::parse();
    cli::report::init(args.verbosity(), args.color().stderr_colored());
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprint!("{}", cli::diagnostic::render(&err));
            ExitCode::from(cli::exit_code_of(&err))
        }
    }
}
