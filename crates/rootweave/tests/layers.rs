//! The layer rule of docs/architecture.md: a module of the library names only modules of
//! the layers below its own (`use crate::...` and any `crate::` path in code). The layers
//! and their levels come from the table in docs/architecture.md, so the page and the code
//! cannot drift apart: a new top-level module must be given a level there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `(level, module)` of every row of the layer table: rows whose first cell is a number
/// and whose second cell is a module name in backquotes.
fn layer_levels(architecture: &str) -> HashMap<String, u32> {
    let mut levels = HashMap::new();
    for line in architecture.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 {
            continue;
        }
        let (Ok(level), Some(module)) = (
            cells[1].parse::<u32>(),
            cells[2].strip_prefix('`').and_then(|c| c.strip_suffix('`')),
        ) else {
            continue;
        };
        levels.insert(module.to_string(), level);
    }
    levels
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a line of code names through `crate::` paths, grouped ones
/// (`crate::{a, b::c}`) included.
fn named_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `rootweave_crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn no_module_names_a_layer_above_its_own() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(root.join("../../docs/architecture.md"))
        .expect("docs/architecture.md");
    let levels = layer_levels(&architecture);
    assert!(
        levels.len() >= 8,
        "the layer table of docs/architecture.md has {} rows with a level",
        levels.len()
    );
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        if relative == Path::new("lib.rs") {
            continue;
        }
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(&level) = levels.get(&module) else {
            wrong.push(format!(
                "{}: module '{module}' is in no layer",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for named in named_modules(code) {
                if named == module || named == "Error" || named == "Result" {
                    continue;
                }
                match levels.get(&named) {
                    Some(&other) if other < level => {}
                    Some(&other) => wrong.push(format!(
                        "{}:{}: '{module}' (level {level}) names '{named}' (level {other})",
                        relative.display(),
                        n + 1
                    )),
                    None => wrong.push(format!(
                        "{}:{}: '{named}' is in no layer",
                        relative.display(),
                        n + 1
                    )),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "edges against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn grouped_and_nested_paths_are_seen() {
    assert_eq!(
        named_modules("use crate::{array::Array, io::ReadAt};"),
        ["array", "io"]
    );
    assert_eq!(
        named_modules("let x = crate::rntuple::read::plan(a, crate::ttree::X);"),
        ["rntuple", "ttree"]
    );
    assert!(named_modules("my_crate::io::x").is_empty());
}

/// The rooms of a format that a room may not name: a TTree's model knows neither how
/// entries are interpreted nor how they are read, and interpretation does not know
/// reading; the RNTuple on-disk model knows neither the reader nor the writer.
const ROOMS_BELOW: [(&str, &str, &[&str]); 3] = [
    ("ttree", "model", &["interpretation", "read", "write"]),
    ("ttree", "interpretation", &["read", "write"]),
    ("rntuple", "format", &["read", "write"]),
];

#[test]
fn format_rooms_name_only_the_rooms_below() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (format, room, above) in ROOMS_BELOW {
        let mut files = Vec::new();
        rust_files(&src.join(format).join(room), &mut files);
        assert!(!files.is_empty(), "src/{format}/{room} has no files");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for other in above {
                    if line.contains(&format!("{format}::{other}")) {
                        wrong.push(format!("{}:{}: names {other}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "edges between ttree rooms:\n{}",
        wrong.join("\n")
    );
}
