//! The `deppy` command line: parses arguments, calls the library, prints, maps errors to exit
//! codes (0 success, 1 unsatisfiable or invalid catalog, 2 bad input or usage).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp(None)
        .init();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(cli::EXIT_BAD_INPUT)
        }
    }
}
