//! Checks on the repository itself rather than on the program's behaviour: the module layers of
//! `docs/architecture.md` (imports point down, no import circle), the size of source files, the
//! links of the README and the guide, and the source paths they name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may grow before it is split along its concepts; unit-test files
/// (see [`tests_file_of`]) are exempt.
const MAX_SOURCE_LINES: usize = 600;
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

// ---------------------------------------------------------------------------------------------
// Reading Rust as Rust: tokens, `use` trees, `mod` lines and paths in code.

/// A piece of code: comments are dropped, and character literals and lifetimes, which name no
/// module; `::` is one token so that paths read segment by segment.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSeparator,
    Text(String),
    Punct(char),
}

/// The tokens of a Rust source file.
fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |pos: usize| chars.get(pos).copied().unwrap_or('\0');
    let is_ident_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < chars.len() {
        let c = chars[pos];
        if c.is_whitespace() {
            pos += 1;
        } else if c == '/' && at(pos + 1) == '/' {
            while pos < chars.len() && chars[pos] != '\n' {
                pos += 1;
            }
        } else if c == '/' && at(pos + 1) == '*' {
            let mut depth = 0;
            while pos < chars.len() {
                if chars[pos] == '/' && at(pos + 1) == '*' {
                    depth += 1;
                    pos += 2;
                } else if chars[pos] == '*' && at(pos + 1) == '/' {
                    depth -= 1;
                    pos += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    pos += 1;
                }
            }
        } else if c == '"' {
            let (text, end) = quoted(&chars, pos + 1);
            tokens.push(Token::Text(text));
            pos = end;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{7f}') or a lifetime ('a, 'static).
            if at(pos + 1) == '\\' {
                pos += 3;
                while pos < chars.len() && chars[pos] != '\'' {
                    pos += 1;
                }
                pos += 1;
            } else if at(pos + 2) == '\'' {
                pos += 3;
            } else {
                pos += 1;
            }
        } else if is_ident_char(c) {
            let start = pos;
            while pos < chars.len() && is_ident_char(chars[pos]) {
                pos += 1;
            }
            let word: String = chars[start..pos].iter().collect();
            let is_raw_string = matches!(word.as_str(), "r" | "br" | "cr")
                && (at(pos) == '"' || (at(pos) == '#' && matches!(at(pos + 1), '#' | '"')));
            if is_raw_string {
                let hashes = chars[pos..].iter().take_while(|&&c| c == '#').count();
                let open = pos + hashes + 1;
                let closing: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let close = (open..chars.len())
                    .find(|&end| chars[end..].starts_with(&closing))
                    .unwrap_or(chars.len());
                tokens.push(Token::Text(chars[open..close].iter().collect()));
                pos = close + closing.len();
            } else if matches!(word.as_str(), "b" | "c") && at(pos) == '"' {
                let (text, end) = quoted(&chars, pos + 1);
                tokens.push(Token::Text(text));
                pos = end;
            } else if word == "r" && at(pos) == '#' && is_ident_char(at(pos + 1)) {
                pos += 1; // a raw identifier: `r#type` reads as `type`
            } else {
                tokens.push(Token::Ident(word));
            }
        } else if c == ':' && at(pos + 1) == ':' {
            tokens.push(Token::PathSeparator);
            pos += 2;
        } else {
            tokens.push(Token::Punct(c));
            pos += 1;
        }
    }
    tokens
}

/// The text of a string literal whose first character is at `start`, and the position after
/// its closing quote.
fn quoted(chars: &[char], start: usize) -> (String, usize) {
    let mut text = String::new();
    let mut pos = start;
    while pos < chars.len() && chars[pos] != '"' {
        if chars[pos] == '\\' {
            pos += 1;
        }
        if let Some(&c) = chars.get(pos) {
            text.push(c);
        }
        pos += 1;
    }
    (text, pos + 1)
}

/// A path a file names: in a `use` tree (one path per leaf) or in its code (a path that starts
/// with `crate::`, `super::` or `self::`).
#[derive(Debug, Clone, PartialEq)]
struct Reference {
    /// The inline modules the path is written in, outermost first (empty at the file's top).
    scope: Vec<String>,
    /// The path as written, `self` of a group included (`a::{self}` gives `a::self`).
    segments: Vec<String>,
    /// The name a `use` leaf brings into scope (its `as` rename, or its last segment); none for
    /// a glob or a path in code.
    binding: Option<String>,
    /// Whether the path is in a `use`.
    is_use: bool,
    /// Whether the path sits in code compiled for tests only (`#[cfg(test)]`).
    is_test: bool,
}

/// A module a file declares: `mod name;` (from another file) or `mod name { … }` (inline).
#[derive(Debug, Clone, PartialEq)]
struct Declaration {
    /// The inline modules the declaration is written in, outermost first.
    scope: Vec<String>,
    name: String,
    /// Its `#[path = "…"]`, if any.
    path: Option<String>,
    is_inline: bool,
    /// Whether the module is compiled for tests only (`#[cfg(test)]`).
    is_test: bool,
}

/// What a source file names and declares.
#[derive(Debug, Default)]
struct Code {
    references: Vec<Reference>,
    declarations: Vec<Declaration>,
}

/// Reads the `use` trees, `mod` declarations and paths in code of a source file.
fn read_code(source: &str) -> Code {
    let tokens = tokenize(source);
    let ident = |pos: usize| match tokens.get(pos) {
        Some(Token::Ident(word)) => Some(word.as_str()),
        _ => None,
    };
    let punct = |pos: usize, c: char| tokens.get(pos) == Some(&Token::Punct(c));
    let separator = |pos: usize| tokens.get(pos) == Some(&Token::PathSeparator);
    let mut code = Code::default();
    // The nesting of brackets of every kind, and the inline modules open with their depth.
    let mut depth = 0usize;
    let mut modules: Vec<(usize, String, bool)> = Vec::new();
    // The test-only item being read: the depth it started at.
    let mut test_item: Option<usize> = None;
    let (mut is_test_next, mut path_next) = (false, None::<String>);
    let mut pos = 0;
    while pos < tokens.len() {
        let is_outer_attribute = punct(pos, '#') && punct(pos + 1, '[');
        if is_outer_attribute || (punct(pos, '#') && punct(pos + 1, '!') && punct(pos + 2, '[')) {
            let open = if is_outer_attribute { pos + 1 } else { pos + 2 };
            let close = matching(&tokens, open);
            let inside = &tokens[open + 1..close];
            let test_cfg = [
                Token::Ident("cfg".into()),
                Token::Punct('('),
                Token::Ident("test".into()),
                Token::Punct(')'),
            ];
            if is_outer_attribute && inside == test_cfg {
                is_test_next = true;
            }
            if let [Token::Ident(name), Token::Punct('='), Token::Text(path)] = inside {
                if name == "path" && is_outer_attribute {
                    path_next = Some(path.clone());
                }
            }
            pos = close + 1;
            continue;
        }
        if is_test_next && test_item.is_none() {
            test_item = Some(depth);
        }
        is_test_next = false;
        let is_test = test_item.is_some() || modules.iter().any(|(_, _, is_test)| *is_test);
        let scope: Vec<String> = modules.iter().map(|(_, name, _)| name.clone()).collect();
        match &tokens[pos] {
            Token::Ident(word) if word == "use" => {
                let end = (pos..tokens.len())
                    .find(|&end| punct(end, ';'))
                    .unwrap_or(tokens.len());
                for (segments, binding) in use_tree(&tokens[pos + 1..end]) {
                    code.references.push(Reference {
                        scope: scope.clone(),
                        segments,
                        binding,
                        is_use: true,
                        is_test,
                    });
                }
                pos = end;
                if test_item == Some(depth) {
                    test_item = None;
                }
                pos += 1;
                continue;
            }
            Token::Ident(word) if word == "mod" => {
                // A macro's `mod $name { … }` is a module too, whose `super` is the file's.
                let (name, after) = match (ident(pos + 1), ident(pos + 2)) {
                    (Some(name), _) => (Some(name.to_string()), pos + 2),
                    (None, Some(name)) if punct(pos + 1, '$') => {
                        (Some(format!("${name}")), pos + 3)
                    }
                    _ => (None, pos + 1),
                };
                if let Some(name) = name {
                    let is_inline = punct(after, '{');
                    code.declarations.push(Declaration {
                        scope: scope.clone(),
                        name: name.clone(),
                        path: path_next.take(),
                        is_inline,
                        is_test,
                    });
                    if is_inline {
                        modules.push((depth, name, is_test));
                    }
                    pos = after;
                    continue;
                }
            }
            Token::Ident(word)
                if matches!(word.as_str(), "crate" | "super" | "self")
                    && separator(pos + 1)
                    && !(pos > 0 && (punct(pos - 1, '$') || separator(pos - 1)))
                    && !is_visibility_path(&tokens, pos) =>
            {
                let mut segments = vec![word.clone()];
                let mut end = pos + 1;
                while separator(end) {
                    let Some(segment) = ident(end + 1) else {
                        break;
                    };
                    segments.push(segment.to_string());
                    end += 2;
                }
                code.references.push(Reference {
                    scope,
                    segments,
                    binding: None,
                    is_use: false,
                    is_test,
                });
                pos = end;
                continue;
            }
            Token::Punct('{' | '(' | '[') => depth += 1,
            Token::Punct('}' | ')' | ']') => {
                depth = depth.saturating_sub(1);
                if modules.last().is_some_and(|(open, _, _)| *open == depth) {
                    modules.pop();
                }
                if test_item == Some(depth) && punct(pos, '}') {
                    test_item = None;
                }
            }
            Token::Punct(';') if test_item == Some(depth) => test_item = None,
            _ => {}
        }
        pos += 1;
    }
    code
}

/// Whether the path at `pos` is the scope of a visibility (`pub(in super::super)`), which
/// imports nothing.
fn is_visibility_path(tokens: &[Token], pos: usize) -> bool {
    pos >= 3
        && tokens[pos - 3] == Token::Ident("pub".into())
        && tokens[pos - 2] == Token::Punct('(')
        && tokens[pos - 1] == Token::Ident("in".into())
}

/// The position of the bracket that closes the one at `open`.
fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (pos, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('{' | '(' | '[') => depth += 1,
            Token::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return pos;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The leaves of a `use` tree (the tokens between `use` and `;`), each with the name it binds:
/// `a::{b as c, d::{self, *}}` gives `a::b` (binding `c`), `a::d::self` (binding `d`) and
/// `a::d` (a glob, binding nothing). A tree starting with `::` names an outside crate.
fn use_tree(tokens: &[Token]) -> Vec<(Vec<String>, Option<String>)> {
    let mut leaves = Vec::new();
    if tokens.first() != Some(&Token::PathSeparator) {
        let mut pos = 0;
        use_subtree(tokens, &mut pos, &[], &mut leaves);
    }
    leaves
}

/// Reads one tree from `pos` on, with the segments of the groups around it in `prefix`.
fn use_subtree(
    tokens: &[Token],
    pos: &mut usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    loop {
        match tokens.get(*pos) {
            Some(Token::Punct('{')) => {
                *pos += 1;
                while !matches!(tokens.get(*pos), None | Some(Token::Punct('}'))) {
                    use_subtree(tokens, pos, &path, leaves);
                    if tokens.get(*pos) == Some(&Token::Punct(',')) {
                        *pos += 1;
                    }
                }
                *pos += 1;
                return;
            }
            Some(Token::Punct('*')) => {
                *pos += 1;
                leaves.push((path, None));
                return;
            }
            Some(Token::Ident(segment)) => {
                path.push(segment.clone());
                *pos += 1;
                if tokens.get(*pos) == Some(&Token::PathSeparator) {
                    *pos += 1;
                    continue;
                }
                let mut binding = if segment == "self" {
                    path.len().checked_sub(2).map(|last| path[last].clone())
                } else {
                    Some(segment.clone())
                };
                if tokens.get(*pos) == Some(&Token::Ident("as".into())) {
                    binding = match tokens.get(*pos + 1) {
                        Some(Token::Ident(rename)) if rename != "_" => Some(rename.clone()),
                        _ => None,
                    };
                    *pos += 2;
                }
                leaves.push((path, binding));
                return;
            }
            _ => {
                // Not a tree this reading knows: skip the token rather than loop on it.
                *pos += 1;
                return;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The crate's modules and the files that define them.

/// A source file as read for the module tree.
#[derive(Debug)]
struct SourceFile {
    /// The module the file defines, from the crate root (`["eval", "measures", "ap"]`).
    module: Vec<String>,
    code: Code,
    /// The file that declares it, and whether for tests only; none for the crate root.
    declared_by: Option<(PathBuf, bool)>,
}

/// The modules of a crate from its root file, following `mod` declarations (`#[path]`
/// included), and the file of each module (an inline module's is the file it is written in).
#[derive(Debug, Default)]
struct ModuleTree {
    files: BTreeMap<PathBuf, SourceFile>,
    modules: BTreeMap<Vec<String>, PathBuf>,
}

impl ModuleTree {
    /// The tree of the crate whose root is `root_file`, reading files with `read_source`
    /// (`None` for a file that does not exist).
    fn build(root_file: &Path, read_source: &dyn Fn(&Path) -> Option<String>) -> Self {
        let mut tree = ModuleTree::default();
        let mut pending = vec![(root_file.to_path_buf(), Vec::new(), None)];
        while let Some((file, module, declared_by)) = pending.pop() {
            let Some(source) = read_source(&file) else {
                continue;
            };
            let code = read_code(&source);
            tree.modules.insert(module.clone(), file.clone());
            for declaration in &code.declarations {
                let mut child = module.clone();
                child.extend(declaration.scope.iter().cloned());
                child.push(declaration.name.clone());
                if declaration.is_inline {
                    tree.modules.insert(child, file.clone());
                    continue;
                }
                let folder = module_folder(&file).join(declaration.scope.join("/"));
                let candidates = match &declaration.path {
                    Some(path) if declaration.scope.is_empty() => {
                        vec![file.parent().unwrap().join(path)]
                    }
                    Some(path) => vec![folder.join(path)],
                    None => vec![
                        folder.join(format!("{}.rs", declaration.name)),
                        folder.join(&declaration.name).join("mod.rs"),
                    ],
                };
                let found = candidates
                    .into_iter()
                    .find(|candidate| read_source(candidate).is_some());
                if let Some(child_file) = found {
                    pending.push((child_file, child, Some((file.clone(), declaration.is_test))));
                }
            }
            tree.files.insert(
                file,
                SourceFile {
                    module,
                    code,
                    declared_by,
                },
            );
        }
        tree
    }

    /// The path from the crate root that `reference`, written in `file`, names; none for a
    /// path into another crate.
    fn absolute(&self, file: &Path, reference: &Reference) -> Option<Vec<String>> {
        let mut scope = self.files[file].module.clone();
        scope.extend(reference.scope.iter().cloned());
        let mut segments = reference.segments.iter().peekable();
        let mut path = match segments.peek().map(|segment| segment.as_str()) {
            Some("crate") => {
                segments.next();
                Vec::new()
            }
            Some("super") => {
                while segments.next_if(|segment| *segment == "super").is_some() {
                    scope.pop()?;
                }
                scope
            }
            Some("self") => {
                segments.next();
                scope
            }
            Some(first) if reference.is_use => {
                // A path from the module's own scope: a child module (`use measures::ap`).
                let mut child = scope.clone();
                child.push(first.to_string());
                if !self.modules.contains_key(&child) {
                    return None;
                }
                scope
            }
            _ => return None,
        };
        path.extend(segments.filter(|segment| *segment != "self").cloned());
        Some(path)
    }

    /// The file that defines what `path` names: the deepest module on it, or, when that module
    /// imports the next segment from another file (`pub use child::Item`), that file.
    fn home(&self, path: &[String]) -> Option<PathBuf> {
        self.home_within(path, 8)
    }

    fn home_within(&self, path: &[String], hops: usize) -> Option<PathBuf> {
        let depth = (0..=path.len())
            .rev()
            .find(|&depth| self.modules.contains_key(&path[..depth]))?;
        let file = &self.modules[&path[..depth]];
        let (Some(item), true) = (path.get(depth), hops > 0) else {
            return Some(file.clone());
        };
        let scope = &path[..depth];
        let binding = self.files[file].code.references.iter().find(|reference| {
            reference.binding.as_deref() == Some(item.as_str())
                && self.files[file].module.len() + reference.scope.len() == scope.len()
        });
        let imported = binding
            .and_then(|reference| self.absolute(file, reference))
            .and_then(|imported| self.home_within(&imported, hops - 1));
        Some(imported.unwrap_or_else(|| file.clone()))
    }

    /// The file-to-file imports of the code outside tests: each `use` leaf and path in code to
    /// the home of what it names, each `mod name;` to the file of the module it declares. A
    /// test-only module is a leaf that nothing imports, so it can close no circle.
    fn imports(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (file, source) in &self.files {
            let is_test_file = self.is_test_file(file);
            let targets = edges.entry(file.clone()).or_default();
            if is_test_file {
                continue;
            }
            for reference in source.code.references.iter().filter(|r| !r.is_test) {
                let home = self
                    .absolute(file, reference)
                    .and_then(|path| self.home(&path));
                if let Some(home) = home.filter(|home| home != file) {
                    targets.insert(home);
                }
            }
        }
        for (file, source) in &self.files {
            if let Some((parent, false)) = &source.declared_by {
                if !self.is_test_file(parent) {
                    edges
                        .entry(parent.clone())
                        .or_default()
                        .insert(file.clone());
                }
            }
        }
        edges
    }

    /// Whether a file is compiled for tests only: declared, or declared by such a file, under
    /// `#[cfg(test)]`.
    fn is_test_file(&self, file: &Path) -> bool {
        match &self.files[file].declared_by {
            Some((_, true)) => true,
            Some((parent, false)) => self.is_test_file(parent),
            None => false,
        }
    }
}

/// The folder in which the modules a file declares live: its own for `mod.rs`, `lib.rs` and
/// `main.rs`, otherwise the folder named after it (`src/cli.rs` → `src/cli/`).
fn module_folder(file: &Path) -> PathBuf {
    let name = file.file_name().unwrap().to_string_lossy();
    if matches!(name.as_ref(), "mod.rs" | "lib.rs" | "main.rs") {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    }
}

/// The library's modules, and the binary's.
fn crate_trees() -> [ModuleTree; 2] {
    let read_source = |path: &Path| std::fs::read_to_string(path).ok();
    let src = root().join("src");
    [
        ModuleTree::build(&src.join("lib.rs"), &read_source),
        ModuleTree::build(&src.join("main.rs"), &read_source),
    ]
}

/// The circles among the imports: one example circle per group of files that reach one another,
/// each listed from its first file back to it.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let reaches = |from: &PathBuf| {
        let mut seen = BTreeSet::new();
        let mut pending = vec![from.clone()];
        while let Some(file) = pending.pop() {
            for next in edges.get(&file).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    pending.push(next.clone());
                }
            }
        }
        seen
    };
    let mut grouped = BTreeSet::new();
    let mut circles = Vec::new();
    for file in edges.keys() {
        if grouped.contains(file) {
            continue;
        }
        let reached = reaches(file);
        if !reached.contains(file) {
            continue;
        }
        let group: BTreeSet<PathBuf> = (reached.iter())
            .filter(|other| reaches(other).contains(file))
            .cloned()
            .collect();
        // The shortest way back to the file, through the group only.
        let mut came_from: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([file.clone()]);
        'search: while let Some(current) = queue.pop_front() {
            for next in edges.get(&current).into_iter().flatten() {
                if !group.contains(next) || came_from.contains_key(next) {
                    continue;
                }
                came_from.insert(next.clone(), current.clone());
                if next == file {
                    break 'search;
                }
                queue.push_back(next.clone());
            }
        }
        let mut way_back = Vec::new();
        let mut current = came_from[file].clone();
        while &current != file {
            way_back.push(current.clone());
            current = came_from[&current].clone();
        }
        way_back.reverse();
        let mut circle = vec![file.clone()];
        circle.extend(way_back);
        circle.push(file.clone());
        circles.push(circle);
        grouped.extend(group);
    }
    circles
}

#[test]
fn imports_point_down_the_layers_and_never_through_the_crate_root() {
    let layers = layer_table();
    let [library, _] = crate_trees();
    let mut problems = Vec::new();
    for (file, source) in &library.files {
        let Some(module) = source.module.first() else {
            continue; // the crate root
        };
        let Some(&layer) = layers.get(module) else {
            problems.push(format!(
                "{}: module `{module}` is missing from docs/architecture.md's layer table",
                file.display()
            ));
            continue;
        };
        for reference in &source.code.references {
            let Some(path) = library.absolute(file, reference) else {
                continue;
            };
            let target = path.first().map(String::as_str).unwrap_or("");
            let is_module = library.modules.contains_key(&path[..path.len().min(1)]);
            match layers.get(target) {
                Some(&target_layer) if is_module && target_layer <= layer => {}
                Some(_) if is_module => problems.push(format!(
                    "{}: `{module}` imports `crate::{}` from a layer above it",
                    file.display(),
                    path.join("::")
                )),
                _ => problems.push(format!(
                    "{}: `crate::{}` goes through the crate root; import from the item's home",
                    file.display(),
                    path.join("::")
                )),
            }
        }
    }
    let [_, binary] = crate_trees();
    for (file, source) in &binary.files {
        if let Some(module) = source.module.first() {
            if layers.get(module) != layers.get("cli") {
                problems.push(format!(
                    "{}: the binary's module `{module}` is not in the cli layer",
                    file.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_import_circle_between_source_files() {
    let src = root().join("src");
    let [library, _] = crate_trees();
    assert!(
        library.files.len() > 100,
        "only {} library files found: is the module reading broken?",
        library.files.len()
    );
    let found: Vec<String> = circles(&library.imports())
        .iter()
        .map(|circle| {
            let names: Vec<String> = (circle.iter())
                .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
                .collect();
            format!("import circle: {}", names.join(" → "))
        })
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The unit-test file of `file`, its `#[cfg(test)] mod tests`: `tests.rs` in the folder of the modules it declares when that
/// folder exists (`eval/tests.rs` for `eval/mod.rs`, `cli/tests.rs` for `cli.rs`), else
/// `<name>_tests.rs` beside it (`eval/measure_tests.rs` for `eval/measure.rs`).
fn tests_file_of(file: &Path) -> PathBuf {
    let folder = module_folder(file);
    if folder.is_dir() {
        folder.join("tests.rs")
    } else {
        let stem = file.file_stem().unwrap().to_string_lossy();
        file.with_file_name(format!("{stem}_tests.rs"))
    }
}

/// Whether a file's name is that of a unit-test file.
fn is_named_as_tests(file: &Path) -> bool {
    let name = file.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

#[test]
fn unit_test_files_are_named_after_the_file_they_test() {
    let src = root().join("src");
    let trees = crate_trees();
    let mut problems = Vec::new();
    for file in files_under(&src, ".rs") {
        let Some(tree) = trees.iter().find(|tree| tree.files.contains_key(&file)) else {
            problems.push(format!("{}: no module of the crate", file.display()));
            continue;
        };
        let source = &tree.files[&file];
        let is_tests_module = matches!(source.declared_by, Some((_, true)))
            && source.module.last().is_some_and(|name| name == "tests");
        let Some((declaring, _)) = source.declared_by.as_ref().filter(|_| is_tests_module) else {
            if is_named_as_tests(&file) {
                problems.push(format!(
                    "{}: named as unit tests, but not a `#[cfg(test)] mod tests`",
                    file.display()
                ));
            }
            continue;
        };
        let expected = tests_file_of(declaring);
        if file != expected {
            problems.push(format!(
                "{}: the unit tests of {} go in {}",
                file.display(),
                declaring.display(),
                expected.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let src = root().join("src");
    let trees = crate_trees();
    let is_test_file = |file: &Path| {
        (trees.iter()).any(|tree| tree.files.contains_key(file) && tree.is_test_file(file))
    };
    let too_long: Vec<String> = files_under(&src, ".rs")
        .into_iter()
        .filter(|file| !(is_named_as_tests(file) && is_test_file(file)))
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

#[test]
fn the_readme_stays_a_front_page() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= MAX_README_LINES,
        "README.md has {lines} lines, more than {MAX_README_LINES}: move the detail into docs/ and link it"
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

/// The `use` leaves of `source` at its top, as `path => binding` (`*` for a glob).
fn use_leaves(source: &str) -> Vec<String> {
    (read_code(source).references.iter())
        .filter(|reference| reference.is_use)
        .map(|reference| {
            let binding = reference.binding.as_deref().unwrap_or("*");
            format!("{} => {binding}", reference.segments.join("::"))
        })
        .collect()
}

/// The module tree of a crate made of `files` (path under `src/`, source).
fn tree_of(files: &[(&str, &str)]) -> ModuleTree {
    let sources: BTreeMap<PathBuf, String> = (files.iter())
        .map(|(path, source)| (Path::new("src").join(path), source.to_string()))
        .collect();
    ModuleTree::build(Path::new("src/lib.rs"), &|path: &Path| {
        sources.get(path).cloned()
    })
}

#[test]
fn a_grouped_import_names_each_of_its_leaves() {
    let leaves = use_leaves("use crate::a::{b, c::D};");
    assert_eq!(leaves, ["crate::a::b => b", "crate::a::c::D => D"]);
}

#[test]
fn a_nested_group_names_its_self_its_renames_and_its_globs() {
    let leaves = use_leaves("pub(crate) use crate::a::{self, b::{self as bee, C}, d::*};");
    let expected = [
        "crate::a::self => a",
        "crate::a::b::self => bee",
        "crate::a::b::C => C",
        "crate::a::d => *",
    ];
    assert_eq!(leaves, expected);
}

#[test]
fn a_use_over_several_lines_is_one_tree() {
    let source = "pub use super::{\n    x::Y, // a comment: crate::z\n    /* more */ z as w,\n};\n";
    assert_eq!(use_leaves(source), ["super::x::Y => Y", "super::z => w"]);
}

#[test]
fn paths_in_code_are_read_outside_comments_strings_and_macro_crates() {
    let source = r##"
        fn f() -> crate::a::B {
            // crate::commented::Out
            let text = "crate::quoted::Out";
            let raw = r#"super::raw::Out"#;
            let quote = '"';
            $crate::macro_crate::Out;
            super::super::c::d(crate::e::F)
        }
        pub(in super::super) fn g() {}
    "##;
    let paths: Vec<String> = (read_code(source).references.iter())
        .map(|reference| reference.segments.join("::"))
        .collect();
    assert_eq!(paths, ["crate::a::B", "super::super::c::d", "crate::e::F"]);
}

#[test]
fn a_mod_line_is_an_import_of_the_module_it_declares_unless_for_tests() {
    let tree = tree_of(&[
        ("lib.rs", "pub mod a;"),
        (
            "a/mod.rs",
            "mod b;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"c_tests.rs\"]\nmod c;",
        ),
        ("a/b.rs", ""),
        ("a/tests.rs", "use super::*;"),
        ("a/c_tests.rs", "use crate::a::b;"),
    ]);
    let file = |path: &str| Path::new("src").join(path);
    let edges = tree.imports();
    assert_eq!(edges[&file("lib.rs")], BTreeSet::from([file("a/mod.rs")]));
    assert_eq!(edges[&file("a/mod.rs")], BTreeSet::from([file("a/b.rs")]));
    assert!(edges[&file("a/tests.rs")].is_empty());
    assert!(tree.is_test_file(&file("a/c_tests.rs")));
}

#[test]
fn a_circle_made_only_of_grouped_imports_is_found() {
    // Read one segment at a time, `crate::m::{y::Y}` stopped at `{` and named `m/mod.rs`, the
    // file's own parent, so this circle went unseen.
    let tree = tree_of(&[
        ("lib.rs", "pub mod m;"),
        ("m/mod.rs", "pub mod x;\npub mod y;"),
        ("m/x.rs", "use crate::m::{y::Y};\npub struct X;"),
        ("m/y.rs", "use crate::m::{x::{self, X}};\npub struct Y;"),
    ]);
    let file = |path: &str| Path::new("src").join(path);
    let expected = vec![vec![file("m/x.rs"), file("m/y.rs"), file("m/x.rs")]];
    assert_eq!(circles(&tree.imports()), expected);
}

#[test]
fn an_item_a_module_imports_has_its_home_in_the_file_that_defines_it() {
    let tree = tree_of(&[
        ("lib.rs", "pub mod m;"),
        ("m/mod.rs", "mod x;\npub use x::{Y as Z};\nuse self::x::W;"),
        ("m/x.rs", "pub struct Y;\npub struct W;"),
    ]);
    let home = |path: &str| {
        let segments: Vec<String> = path.split("::").map(str::to_string).collect();
        let home = tree.home(&segments).unwrap();
        home.strip_prefix("src").unwrap().display().to_string()
    };
    assert_eq!(home("m::Z"), "m/x.rs");
    assert_eq!(home("m::W"), "m/x.rs");
    assert_eq!(home("m::Other"), "m/mod.rs");
    assert_eq!(home("m::x::Y"), "m/x.rs");
}
