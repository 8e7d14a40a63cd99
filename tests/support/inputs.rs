//! Inputs for tests and for the hostile-input sweep (`cargo run --example sweep_inputs`):
//! catalogs, constraint rules and generic models, made in memory. No dependency on the
//! binary, so examples can include this file too.

#![allow(dead_code)]

/// A small catalog file: package `name` with one bundle `name.v1.0.0` in channel `stable`.
pub fn one_bundle_catalog(name: &str) -> String {
    format!(
        r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"{name}","name":"stable","entries":[{{"name":"{name}.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"{name}.v1.0.0","package":"{name}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"{name}","version":"1.0.0"}}}}]}}
"#
    )
}

/// The property list's tail of link `i` of an `n`-link chain: `p{i}` requires `p{i+1}` at
/// `>=1.0.0` (nothing for the last link).
pub fn chain_dependency(i: usize, n: usize) -> String {
    if i + 1 < n {
        format!(
            r#",{{"type":"olm.package.required","value":{{"packageName":"p{}","versionRange":">=1.0.0"}}}}"#,
            i + 1
        )
    } else {
        String::new()
    }
}

/// A chain of `n` packages: `p0` requires `p1` ... requires `p{n-1}`.
pub fn chain_catalog(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            r#"{{"schema":"olm.package","name":"p{i}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"p{i}","name":"stable","entries":[{{"name":"p{i}.v1.0.0"}}]}}
"#
        ));
        let dep = chain_dependency(i, n);
        out.push_str(&format!(
            r#"{{"schema":"olm.bundle","name":"p{i}.v1.0.0","package":"p{i}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{i}","version":"1.0.0"}}}}{dep}]}}
"#
        ));
    }
    out
}

/// `pigeons` packages of `holes` bundles each; bundle `p{i}.v1.0.{h}` provides API `K{h}`.
/// Requiring every package asks for more providers of distinct APIs than there are: a
/// pigeonhole, unsatisfiable and hard for the solver when `pigeons > holes`.
pub fn pigeonhole_catalog(pigeons: usize, holes: usize) -> String {
    let mut out = String::new();
    for p in 0..pigeons {
        out.push_str(&format!(
            r#"{{"schema":"olm.package","name":"p{p}","defaultChannel":"stable"}}
"#
        ));
        let entries: Vec<String> = (0..holes)
            .map(|h| match h {
                0 => format!(r#"{{"name":"p{p}.v1.0.0"}}"#),
                _ => format!(
                    r#"{{"name":"p{p}.v1.0.{h}","replaces":"p{p}.v1.0.{}"}}"#,
                    h - 1
                ),
            })
            .collect();
        out.push_str(&format!(
            r#"{{"schema":"olm.channel","package":"p{p}","name":"stable","entries":[{}]}}
"#,
            entries.join(",")
        ));
        for h in 0..holes {
            out.push_str(&format!(
                r#"{{"schema":"olm.bundle","name":"p{p}.v1.0.{h}","package":"p{p}","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"p{p}","version":"1.0.{h}"}}}},{{"type":"olm.gvk","value":{{"group":"g.io","version":"v1","kind":"K{h}"}}}}]}}
"#
            ));
        }
    }
    out
}

/// `--require p0 ... --require p{n-1}`.
pub fn require_all(n: usize) -> Vec<String> {
    (0..n)
        .flat_map(|i| ["--require".to_string(), format!("p{i}")])
        .collect()
}

/// A catalog: package `a` whose bundle requires `rule` (an `olm.constraint` CEL rule), and
/// `others` packages `b{i}`, with `props` extra properties on `b0`'s bundle.
pub fn cel_catalog(rule: &str, others: usize, props: usize) -> String {
    let constraint = serde_json::json!({"cel": {"rule": rule}, "failureMessage": "needs a match"});
    let mut out = format!(
        r#"{{"schema":"olm.package","name":"a","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"a","name":"stable","entries":[{{"name":"a.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"img","properties":[{{"type":"olm.package","value":{{"packageName":"a","version":"1.0.0"}}}},{{"type":"olm.constraint","value":{constraint}}}]}}
"#
    );
    for i in 0..others {
        let mut properties = vec![
            serde_json::json!({"type": "olm.package", "value": {"packageName": format!("b{i}"), "version": "1.0.0"}}),
        ];
        if i == 0 {
            properties.extend((0..props).map(|k| serde_json::json!({"type": "x.tag", "value": k})));
        }
        out.push_str(&format!(
            r#"{{"schema":"olm.package","name":"b{i}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"b{i}","name":"stable","entries":[{{"name":"b{i}.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"b{i}.v1.0.0","package":"b{i}","image":"img","properties":{}}}
"#,
            serde_json::Value::Array(properties)
        ));
    }
    out
}

/// A CEL literal list of `n` ones: `[1,1,...]`.
pub fn literal(n: usize) -> String {
    format!("[{}]", vec!["1"; n].join(","))
}

/// A generic model (YAML) of `n` variables: `v0` mandatory, each `v{i}` depends on
/// `v{i+1}`.
pub fn model_chain_yaml(n: usize) -> String {
    let mut yaml = String::from(
        "variables:\n  - {id: v0, constraints: [{mandatory: {}}, {dependency: [v1]}]}\n",
    );
    for i in 1..n - 1 {
        yaml.push_str(&format!(
            "  - {{id: v{i}, constraints: [{{dependency: [v{}]}}]}}\n",
            i + 1
        ));
    }
    yaml.push_str(&format!("  - {{id: v{}}}\n", n - 1));
    yaml
}

/// A generic model (YAML): `pigeons` mandatory pigeons, each in one of `holes` holes that
/// hold one each; unsatisfiable when `pigeons > holes`.
pub fn model_pigeonhole_yaml(pigeons: usize, holes: usize) -> String {
    let mut out = String::from("variables:\n");
    for p in 0..pigeons {
        let slots: Vec<String> = (0..holes).map(|h| format!("p{p}h{h}")).collect();
        out.push_str(&format!(
            "  - {{id: pigeon{p}, constraints: [{{mandatory: {{}}}}, {{dependency: [{}]}}]}}\n",
            slots.join(", ")
        ));
    }
    for h in 0..holes {
        let ids: Vec<String> = (0..pigeons).map(|p| format!("p{p}h{h}")).collect();
        out.push_str(&format!(
            "  - {{id: hole{h}, constraints: [{{atMost: {{n: 1, ids: [{}]}}}}]}}\n",
            ids.join(", ")
        ));
    }
    for p in 0..pigeons {
        for h in 0..holes {
            out.push_str(&format!("  - {{id: p{p}h{h}}}\n"));
        }
    }
    out
}

/// A YAML alias bomb of 9 levels of 10 aliases (10^9 nodes once expanded) in about 500
/// bytes, as mappings `a0` ... `a8`.
pub fn alias_bomb_yaml() -> String {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        bomb.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    bomb
}
