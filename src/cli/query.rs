//! `deppy why TARGET` and `deppy why-not TARGET`: run the request, then answer the question
//! about one bundle (or a package's bundle).

use anyhow::bail;
use clap::Args;

use deppy::advanced::catalog::BundleId;
use deppy::advanced::explain::{Detail, explain_failure, why as words};
use deppy::advanced::resolve::why::WhyNot;
use deppy::advanced::resolve::{Adjustments, Outcome, Resolver, Rule, RuleEffect, RuleOrigin};
use deppy::pipeline::Resolution;

use super::output::{self, Content, line};
use super::resolve::{RequestArgs, resolution_or_exit};
use super::{EXIT_FAILED, EXIT_OK};

/// `deppy why` / `deppy why-not` arguments.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// A bundle name, or a package name (why: its selected bundle; why-not: its newest bundle
    /// not in the answer).
    pub target: String,
    #[command(flatten)]
    pub request: RequestArgs,
}

/// The resolution, or the exit code of a run that gave up (what it proved is printed).
fn resolve(args: &QueryArgs) -> anyhow::Result<Result<Resolution, u8>> {
    let sources = args.request.sources()?;
    let mut pipeline = args.request.whole_program_pipeline()?;
    resolution_or_exit(pipeline.run(&sources))
}

fn selected(r: &Resolution) -> Option<&[BundleId]> {
    match &r.outcome {
        Outcome::Resolved(a) => Some(&a.bundles),
        Outcome::Unsatisfiable(_) => None,
    }
}

/// Bundles named `target`, else the bundles of package `target`.
fn targets(r: &Resolution, target: &str) -> Vec<BundleId> {
    let set = &r.universe().set;
    let by_name: Vec<BundleId> = set
        .bundles
        .iter()
        .filter(|b| b.name == target)
        .map(|b| b.id)
        .collect();
    if !by_name.is_empty() {
        return by_name;
    }
    set.package_id(target)
        .map(|p| set.bundles_of(p).to_vec())
        .unwrap_or_default()
}

/// Runs `deppy why`.
pub fn why(args: QueryArgs) -> anyhow::Result<u8> {
    let r = match resolve(&args)? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let Some(sel) = selected(&r) else {
        line(
            "The request is unsatisfiable, so nothing is in an answer; `deppy resolve` says why.",
        )?;
        return Ok(EXIT_FAILED);
    };
    let all = targets(&r, &args.target);
    if all.is_empty() {
        bail!(
            "no bundle or package named {:?} in the catalogs",
            args.target
        );
    }
    let model = &r.variables.model;
    match all.iter().find_map(|b| model.why(sel, *b).map(|c| (*b, c))) {
        Some((b, chain)) => {
            output::print(&words::why(model, r.request(), b, &chain), Content::Text)?;
            Ok(EXIT_OK)
        }
        None => {
            line(format!(
                "{} is not in the answer; see `deppy why-not {}`",
                args.target, args.target
            ))?;
            Ok(EXIT_FAILED)
        }
    }
}

/// Runs `deppy why-not`.
pub fn why_not(args: QueryArgs) -> anyhow::Result<u8> {
    let sources = args.request.sources()?;
    let r = match resolve(&args)? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    // Unsatisfiable: nothing is selected, but exclusions and rejections still say why.
    let sel: &[BundleId] = selected(&r).unwrap_or(&[]);
    let model = &r.variables.model;
    let all = targets(&r, &args.target);
    // A package: its newest bundle not in the answer (`preferred_unselected`).
    let Some(&target) = all.iter().rev().find(|b| !sel.contains(b)).or(all.first()) else {
        bail!(
            "no bundle or package named {:?} in the catalogs",
            args.target
        );
    };
    let target = preferred_unselected(&r, &all, sel).unwrap_or(target);
    let answer = model.why_not(sel, target);
    let (feasible, proof) = if matches!(answer, WhyNot::Selected | WhyNot::Excluded(_)) {
        (None, None)
    } else {
        feasibility(&r, &sources.request, target, &args.request.budget)?
    };
    output::print(
        &words::why_not(
            model,
            r.request(),
            target,
            &answer,
            feasible.as_deref(),
            proof.as_deref(),
        ),
        Content::Text,
    )?;
    Ok(if matches!(answer, WhyNot::Selected) {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}

/// Among a package's bundles, the highest version not selected.
fn preferred_unselected(r: &Resolution, all: &[BundleId], sel: &[BundleId]) -> Option<BundleId> {
    let set = &r.universe().set;
    all.iter()
        .filter(|b| !sel.contains(b))
        .filter_map(|b| set.bundle(*b))
        .max_by(|a, b| a.version.cmp(&b.version).then(b.name.cmp(&a.name)))
        .map(|b| b.id)
}

/// Resolves again with `target` required: the bundles selected then, or the proof that it
/// cannot be.
fn feasibility(
    r: &Resolution,
    request: &deppy::advanced::request::Request,
    target: BundleId,
    budget: &super::budget::Budget,
) -> anyhow::Result<(Option<Vec<String>>, Option<String>)> {
    let resolver = Resolver::new(r.universe().set.clone()).with_options(budget.options());
    let name = r.universe().bundle(target).name.clone();
    let adjust = Adjustments {
        rules: vec![Rule {
            origin: RuleOrigin::Question,
            effect: RuleEffect::WhatIfInstalled(name),
        }],
        required: vec![(target, 0)],
        ..Adjustments::default()
    };
    let (u, outcome) = resolver.resolve_adjusted(request, &adjust)?;
    Ok(match outcome {
        Outcome::Resolved(a) => (
            Some(a.selected.iter().map(|s| s.bundle.clone()).collect()),
            None,
        ),
        Outcome::Unsatisfiable(f) => (
            None,
            Some(explain_failure(&f, &u, request, Detail::Summary)),
        ),
    })
}

/// `deppy plan` arguments.
#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub request: RequestArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = super::Format::Text)]
    pub output: super::Format,
    #[command(flatten)]
    pub out_file: super::output::OutputFile,
}

/// Runs `deppy plan`: the answer's actions in order, or the failure's explanation.
pub fn plan(args: PlanArgs) -> anyhow::Result<u8> {
    let sources = args.request.sources()?;
    let mut pipeline = args.request.pipeline()?;
    let r = match resolution_or_exit(pipeline.run(&sources))? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    match &r.outcome {
        Outcome::Resolved(a) => {
            let steps = r.variables.model.plan(a);
            let text = || deppy::advanced::report::plan_to_text(&steps);
            args.out_file.emit(
                &super::catalog::render(&steps, args.output, text)?,
                args.output.content(),
            )?;
            Ok(EXIT_OK)
        }
        Outcome::Unsatisfiable(f) => {
            args.out_file.emit(
                &explain_failure(f, r.universe(), r.request(), Detail::Summary),
                Content::Text,
            )?;
            Ok(EXIT_FAILED)
        }
    }
}
