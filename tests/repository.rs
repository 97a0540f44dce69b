//! Checks on the repository itself rather than on the program's behaviour: the module layers of
//! `docs/architecture.md` (imports point down, no import circle), the size of source files, the
//! links of the README and the guide, and the source paths they name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may grow before it is split along its concepts.
const MAX_SOURCE_LINES: usize = 700;
/// The README is the front page: the question, installing, a tour; the detail lives in `docs/`.
const MAX_README_LINES: usize = 250;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Every file under `dir` whose name ends in `extension`, sorted.
fn files_under(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.to_string_lossy().ends_with(extension) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The layer of each top-level module, read from the table in `docs/architecture.md`: the rows
/// of the table headed `| layer | modules | owns |` in order, the modules in backticks.
fn layer_table() -> BTreeMap<String, usize> {
    let text = read(&root().join("docs/architecture.md"));
    let rows = text
        .lines()
        .skip_while(|line| !line.starts_with("| layer | modules |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'));
    let mut layers = BTreeMap::new();
    for (layer, row) in rows.enumerate() {
        let modules = row.split('|').nth(2).expect("a modules column");
        for module in modules.split('`').skip(1).step_by(2) {
            layers.insert(module.to_string(), layer);
        }
    }
    assert!(layers.len() > 5, "no layer table in docs/architecture.md");
    layers
}

/// The source file a `crate::` path names: the deepest module file its segments reach.
fn module_file(segments: &[&str]) -> Option<PathBuf> {
    (1..=segments.len()).rev().find_map(|depth| {
        let stem = root().join("src").join(segments[..depth].join("/"));
        [stem.with_extension("rs"), stem.join("mod.rs")]
            .into_iter()
            .find(|path| path.is_file())
    })
}

/// The `crate::` paths of a file's code (comments left out), as their segments.
fn crate_paths(source: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        for (start, _) in code.match_indices("crate::") {
            let preceded_by_ident = code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
            if preceded_by_ident {
                continue;
            }
            let rest = &code[start + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{'))
                .unwrap_or(rest.len());
            let segments: Vec<String> = rest[..end]
                .split("::")
                .take_while(|segment| !segment.is_empty())
                .map(str::to_string)
                .collect();
            paths.push(segments);
        }
    }
    paths
}

/// The module path of a source file (`src/sim/study.rs` → `sim::study`, `src/sim/mod.rs` →
/// `sim`).
fn module_of(file: &Path) -> Vec<String> {
    let relative = file
        .strip_prefix(root().join("src"))
        .unwrap()
        .with_extension("");
    let mut segments: Vec<String> = (relative.components())
        .map(|part| part.as_os_str().to_string_lossy().to_string())
        .collect();
    if segments.last().is_some_and(|last| last == "mod") {
        segments.pop();
    }
    segments
}

/// The paths a `use` tree names, each as its segments after `prefix` (`a::{b, c::d}` gives
/// `a::b` and `a::c::d`).
fn use_tree_paths(prefix: &[String], tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let (head, group) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.rfind('}').unwrap()]),
        ),
        None => (tree, None),
    };
    let mut path = prefix.to_vec();
    path.extend(
        head.split("::")
            .map(|segment| segment.split(" as ").next().unwrap().trim())
            .filter(|segment| !segment.is_empty() && *segment != "*" && *segment != "self")
            .map(str::to_string),
    );
    let Some(group) = group else {
        return vec![path];
    };
    // Split the group at its top-level commas.
    let (mut depth, mut start, mut paths) = (0, 0, Vec::new());
    for (pos, c) in group.char_indices().chain([(group.len(), ',')]) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                if !group[start..pos].trim().is_empty() {
                    paths.extend(use_tree_paths(&path, &group[start..pos]));
                }
                start = pos + 1;
            }
            _ => {}
        }
    }
    paths
}

/// The module paths a file names through `super::`, resolved from its own module: its
/// top-level `use super::…` items (`use super::rows::X` in `src/a/b.rs` names `a::rows::X`)
/// and paths in its code (`super::rows::write(…)`). Indented `use`s and the code of inline
/// modules (`mod tests { … }`), whose `super` is the file itself, are left out.
fn super_paths(file: &Path, source: &str) -> Vec<Vec<String>> {
    let module = module_of(file);
    let parent = module[..module.len().saturating_sub(1)].to_vec();
    let mut paths = Vec::new();
    let mut inline_module_depth = 0usize;
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let code = line.trim_start();
        if inline_module_depth > 0 || is_inline_module(code) {
            inline_module_depth += code.matches('{').count();
            inline_module_depth = inline_module_depth.saturating_sub(code.matches('}').count());
            continue;
        }
        let Some(rest) = line.strip_prefix("use super::") else {
            if !code.starts_with("//") {
                paths.extend(code_super_paths(&parent, code));
            }
            continue;
        };
        let mut statement = rest.to_string();
        while !statement.contains(';') {
            statement.push_str(lines.next().unwrap_or(";"));
        }
        let (parent, tree) = climb(&parent, statement.trim_end().trim_end_matches(';'));
        paths.extend(use_tree_paths(&parent, tree));
    }
    paths
}

/// Whether a line opens an inline module (`mod tests {`, `pub(crate) mod x {`).
fn is_inline_module(code: &str) -> bool {
    let declaration = code.split_once("mod ").map(|(visibility, rest)| {
        let is_visibility = visibility.is_empty() || visibility.starts_with("pub");
        (is_visibility, rest)
    });
    declaration.is_some_and(|(is_visibility, rest)| is_visibility && rest.trim_end().ends_with('{'))
}

/// The paths after each `super::` in a line of code, from `parent` (the file's module's
/// parent).
fn code_super_paths(parent: &[String], code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (start, _) in code.match_indices("super::") {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[start + "super::".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let (parent, path) = climb(parent, &rest[..end]);
        let mut segments = parent;
        segments.extend(
            (path.split("::"))
                .take_while(|segment| !segment.is_empty())
                .map(str::to_string),
        );
        paths.push(segments);
    }
    paths
}

/// `parent` less one module per further `super::` that `path` starts with, and the rest of
/// the path.
fn climb<'p>(parent: &[String], mut path: &'p str) -> (Vec<String>, &'p str) {
    let mut parent = parent.to_vec();
    while let Some(up) = path.strip_prefix("super::") {
        parent.pop();
        path = up;
    }
    (parent, path)
}

/// The file that defines `item` when the module file `module` re-exports it from a child
/// module (`pub use child::Item;`, also `pub(crate)` and `pub(super)`).
fn reexport_home(module: &Path, item: &str) -> Option<PathBuf> {
    let module_path = module_of(module);
    let source = read(module);
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let rest = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix));
        let Some(rest) = rest else {
            continue;
        };
        let mut statement = rest.to_string();
        while !statement.contains(';') {
            statement.push_str(lines.next().unwrap_or(";"));
        }
        let tree = statement.trim_end().trim_end_matches(';');
        if tree.starts_with("crate::") || tree.starts_with("super::") {
            continue; // already counted as the module's own imports
        }
        let home = use_tree_paths(&module_path, tree)
            .into_iter()
            .find(|path| path.last().is_some_and(|last| last == item));
        if let Some(path) = home {
            let segments: Vec<&str> = path.iter().map(String::as_str).collect();
            return module_file(&segments).filter(|home| home != module);
        }
    }
    None
}

/// The top-level module a source file belongs to (`src/sim/study.rs` → `sim`).
fn top_module(file: &Path) -> String {
    let relative = file.strip_prefix(root().join("src")).unwrap();
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

#[test]
fn imports_point_down_the_layers_and_never_through_the_crate_root() {
    let layers = layer_table();
    let mut problems = Vec::new();
    for file in files_under(&root().join("src"), ".rs") {
        let module = top_module(&file);
        if module == "lib" {
            continue;
        }
        let Some(&layer) = layers.get(&module) else {
            problems.push(format!(
                "{}: module `{module}` is missing from docs/architecture.md's layer table",
                file.display()
            ));
            continue;
        };
        if layer == layers["cli"] {
            // The binary's `crate::` is the binary, not the library.
            continue;
        }
        for path in crate_paths(&read(&file)) {
            let target = path.first().map(String::as_str).unwrap_or("");
            match layers.get(target) {
                Some(&target_layer) if target_layer <= layer => {}
                Some(_) => problems.push(format!(
                    "{}: `{module}` imports `crate::{}` from a layer above it",
                    file.display(),
                    path.join("::")
                )),
                None => problems.push(format!(
                    "{}: `crate::{}` goes through the crate root; import from the item's home",
                    file.display(),
                    path.join("::")
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_import_circle_between_source_files() {
    let src = root().join("src");
    let layers = layer_table();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in files_under(&src, ".rs") {
        if layers.get(&top_module(&file)) == layers.get("cli") {
            continue;
        }
        let targets = edges.entry(file.clone()).or_default();
        let source = read(&file);
        for path in crate_paths(&source)
            .into_iter()
            .chain(super_paths(&file, &source))
        {
            let segments: Vec<&str> = path.iter().map(String::as_str).collect();
            if let Some(target) = module_file(&segments).map(|target| {
                // An item a module re-exports is an import of the file that defines it.
                let item = segments.get(module_of(&target).len());
                item.and_then(|item| reexport_home(&target, item))
                    .unwrap_or(target)
            }) {
                // A file naming its own parent module (`mod.rs`) is the module's own business.
                let folder = if target.ends_with("mod.rs") {
                    target.parent().unwrap().to_path_buf()
                } else {
                    target.with_extension("")
                };
                let is_parent = file.starts_with(&folder);
                if target != file && !is_parent {
                    targets.insert(target);
                }
            }
        }
    }
    // Depth-first search; a file met again while still on the path closes a circle.
    fn visit(
        file: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        path: &mut Vec<PathBuf>,
        done: &mut BTreeSet<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        if let Some(pos) = path.iter().position(|on_path| on_path == file) {
            let mut circle = path[pos..].to_vec();
            circle.push(file.clone());
            return Some(circle);
        }
        if done.contains(file) {
            return None;
        }
        path.push(file.clone());
        for next in edges.get(file).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(file.clone());
        None
    }
    let mut done = BTreeSet::new();
    for file in edges.keys() {
        if let Some(circle) = visit(file, &edges, &mut Vec::new(), &mut done) {
            let names: Vec<String> = circle
                .iter()
                .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
                .collect();
            panic!("import circle: {}", names.join(" → "));
        }
    }
}

#[test]
fn the_readme_stays_a_front_page() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= MAX_README_LINES,
        "README.md has {lines} lines, more than {MAX_README_LINES}: move the detail into docs/ and link it"
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let too_long: Vec<String> = files_under(&root().join("src"), ".rs")
        .into_iter()
        .filter_map(|file| {
            let lines = read(&file).lines().count();
            (lines > MAX_SOURCE_LINES).then(|| format!("{}: {lines} lines", file.display()))
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "split these along their concepts (at most {MAX_SOURCE_LINES} lines):\n{}",
        too_long.join("\n")
    );
}

/// The text of a Markdown file outside its fenced code blocks, where `](` is not a link.
fn prose(markdown: &str) -> String {
    let mut is_code = false;
    let mut text = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            is_code = !is_code;
        } else if !is_code {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// The targets of a Markdown file's links and images: what stands between `](` and `)`.
fn link_targets(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    text.match_indices("](")
        .filter_map(|(start, _)| {
            let rest = &text[start + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

/// The anchors GitHub gives a Markdown file's headings: lower-cased, punctuation dropped,
/// spaces turned into hyphens, and `-1`, `-2`, ... after a repeated heading.
fn heading_anchors(markdown: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for line in prose(markdown).lines() {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let slug: String = heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut repeat = 0;
        while anchors.contains(&anchor) {
            repeat += 1;
            anchor = format!("{slug}-{repeat}");
        }
        anchors.insert(anchor);
    }
    anchors
}

#[test]
fn every_relative_link_and_image_of_the_readme_and_the_guide_resolves() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(files_under(&root().join("docs"), ".md"));
    assert!(pages.len() > 5, "the guide in docs/ is missing");
    let mut broken = Vec::new();
    for page in &pages {
        for target in link_targets(&read(page)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            let problem = if !file.exists() {
                Some("no such file")
            } else if !anchor.is_empty()
                && file.extension().is_some_and(|extension| extension == "md")
                && !heading_anchors(&read(&file)).contains(anchor)
            {
                Some("no such heading")
            } else {
                None
            };
            if let Some(problem) = problem {
                broken.push(format!("{}: ({target}): {problem}", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The repository paths (under `src/`, `tests/`, `benches/`, `python/`, `examples/`,
/// `scripts/`) a Markdown page names, each with its line number.
fn source_paths(markdown: &str) -> Vec<(usize, String)> {
    const ROOTS: [&str; 6] = [
        "src/",
        "tests/",
        "benches/",
        "python/",
        "examples/",
        "scripts/",
    ];
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut paths = Vec::new();
    for (pos, line) in markdown.lines().enumerate() {
        for start in 0..line.len() {
            let starts_path = line.is_char_boundary(start)
                && ROOTS.iter().any(|root| line[start..].starts_with(root))
                && !line[..start].chars().next_back().is_some_and(is_path_char);
            if starts_path {
                let rest = &line[start..];
                let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
                let path = rest[..end].trim_end_matches(['.', ',']);
                paths.push((pos + 1, path.to_string()));
            }
        }
    }
    paths
}

#[test]
fn every_source_path_the_readme_and_the_guide_name_exists() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(files_under(&root().join("docs"), ".md"));
    let mut named = 0;
    let mut missing = Vec::new();
    for page in &pages {
        for (line, path) in source_paths(&read(page)) {
            named += 1;
            if !root().join(&path).exists() {
                missing.push(format!("{}:{line}: {path}", page.display()));
            }
        }
    }
    assert!(
        named > 10,
        "only {named} source paths found: the scan is broken"
    );
    assert!(missing.is_empty(), "no such path:\n{}", missing.join("\n"));
}

#[test]
fn source_paths_are_found_where_prose_names_them() {
    let text = "See `src/collection.rs` and (tests/cli/audit.rs). Not xsrc/a.rs; ok src/lib.rs.";
    let paths: Vec<String> = source_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(
        paths,
        ["src/collection.rs", "tests/cli/audit.rs", "src/lib.rs"]
    );
}

#[test]
fn use_super_items_resolve_from_the_files_own_module() {
    let file = root().join("src/sim/analysis/files/domains.rs");
    let source = "use super::rows::CONTROL;\nuse super::{\n    a::B,\n    c::{d, e as f},\n};\n\
                  mod tests {\n    use super::*;\n}\nuse super::super::budget;\n";
    let paths: Vec<String> = (super_paths(&file, source).iter())
        .map(|path| path.join("::"))
        .collect();
    let expected = [
        "sim::analysis::files::rows::CONTROL",
        "sim::analysis::files::a::B",
        "sim::analysis::files::c::d",
        "sim::analysis::files::c::e",
        "sim::analysis::budget",
    ];
    assert_eq!(paths, expected);
}

#[test]
fn headings_give_github_anchors() {
    let anchors = heading_anchors("# The judge's learner\n## Cluster runs: `merge`\n# A\n# A\n");
    let expected = ["a", "a-1", "cluster-runs-merge", "the-judges-learner"];
    assert_eq!(anchors.into_iter().collect::<Vec<_>>(), expected);
}

/// Every `docs/<page>.md` or `docs/<page>.md#<anchor>` that a source file names.
fn docs_references(source: &str) -> Vec<String> {
    source
        .match_indices("docs/")
        .map(|(start, _)| {
            let rest = &source[start..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '/' | '.' | '#' | '-' | '_')))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches('.').to_string()
        })
        .filter(|reference| reference.contains(".md"))
        .collect()
}

#[test]
fn the_docs_pages_that_code_and_messages_name_exist() {
    let mut sources = files_under(&root().join("src"), ".rs");
    sources.extend(files_under(&root().join("python/reusesim"), ".py"));
    let mut broken = Vec::new();
    let mut checked = 0;
    for source in &sources {
        for reference in docs_references(&read(source)) {
            checked += 1;
            let (path, anchor) = reference.split_once('#').unwrap_or((&reference, ""));
            let file = root().join(path);
            let is_found = file.is_file()
                && (anchor.is_empty() || heading_anchors(&read(&file)).contains(anchor));
            if !is_found {
                broken.push(format!("{}: {reference}", source.display()));
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} references to docs/ found: is the scan broken?"
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn every_property_test_block_starts_from_the_fixed_seed() {
    let mut blocks = 0;
    let mut unseeded = Vec::new();
    for file in files_under(&root().join("src"), ".rs") {
        let source = read(&file);
        let lines: Vec<&str> = source.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            if !line.trim_end().ends_with("proptest! {") {
                continue;
            }
            blocks += 1;
            let first = lines.get(number + 1).copied().unwrap_or("");
            if !first.contains("proptest_config(crate::base::fuzz::property_config(") {
                unseeded.push(format!("{}:{}", file.display(), number + 1));
            }
        }
    }
    assert!(
        blocks > 10,
        "only {blocks} proptest! blocks found: is the scan broken?"
    );
    assert!(
        unseeded.is_empty(),
        "these proptest! blocks draw from a random seed, so a failure would not replay; \
         start them with #![proptest_config(crate::base::fuzz::property_config(cases))]:\n{}",
        unseeded.join("\n")
    );
}
