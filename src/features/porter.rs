//! Martin Porter's original stemming algorithm (Porter 1980, "An algorithm for suffix
//! stripping", Program 14(3)), as in his reference ANSI C implementation, which is the
//! `porter.c` that HiCAL compiles into its feature extractor.
//!
//! The reference implementation departs from the paper at three points, and so does this one,
//! because HiCAL's features are what we reproduce:
//! - words of one or two letters are returned unchanged;
//! - step 2 maps `-bli` to `-ble` (the paper has `-abli` to `-able`);
//! - step 2 maps `-logi` to `-log` (not in the paper).
//!
//! This is not Porter2 (Snowball English), which stems e.g. `general` to `general` (here
//! `gener`), `dying` to `die` (here `dy`) and `cry` to `cri` (here `cry`).
//!
//! Why not the `porter-stemmer` crate: checked against Porter's own 23,531-word test vocabulary
//! (his `voc.txt`/`output.txt`), version 0.1.2 of that crate gives 96 wrong stems (`agreement`
//! to `agreem`, `cry` to `cri`, `apology` to `apologi`, ...). This module gives none; the test
//! suite below keeps every word that crate got wrong.
//!
//! The stemmer works on lower-case ASCII letters, which is all the tokenizer ever passes it.
//! Other bytes count as consonants, as in the C code.

/// Stems a lower-case ASCII word in place with Porter's original algorithm.
///
/// The word only ever gets shorter or keeps its length; words of one or two letters are left
/// as they are.
pub fn stem_in_place(word: &mut Vec<u8>) {
    if word.len() <= 2 {
        return;
    }
    step_1ab(word);
    step_1c(word);
    step_2(word);
    step_3(word);
    step_4(word);
    step_5(word);
}

/// The Porter stem of a lower-case ASCII word (see [`stem_in_place`]).
pub fn stem(word: &str) -> String {
    let mut bytes = word.as_bytes().to_vec();
    stem_in_place(&mut bytes);
    // Stemming only truncates and appends ASCII letters, so valid UTF-8 stays valid.
    String::from_utf8(bytes).expect("stemming an ASCII word yields ASCII")
}

fn is_vowel_letter(byte: u8) -> bool {
    matches!(byte, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Whether `word[pos]` is a consonant in Porter's sense: a letter other than a, e, i, o, u,
/// and other than a `y` preceded by a consonant.
fn is_consonant(word: &[u8], pos: usize) -> bool {
    // A run of y's alternates consonant/vowel from the letter before the run; walk back
    // iteratively so a long run of y's cannot exhaust the stack.
    let mut pos = pos;
    let mut is_flipped = false;
    loop {
        let byte = word[pos];
        if is_vowel_letter(byte) {
            return is_flipped;
        }
        if byte != b'y' || pos == 0 {
            return !is_flipped;
        }
        pos -= 1;
        is_flipped = !is_flipped;
    }
}

/// Porter's measure m of `stem`: the number of vowel-sequence/consonant-sequence pairs in
/// `[C](VC)^m[V]`. Linear in the length of `stem`.
fn measure(stem: &[u8]) -> usize {
    let mut count = 0;
    let mut was_vowel = false;
    let mut was_consonant = false;
    for &byte in stem {
        let is_consonant_here = if is_vowel_letter(byte) {
            false
        } else if byte == b'y' {
            // y is a vowel after a consonant; at the start it is a consonant.
            !was_consonant
        } else {
            true
        };
        if is_consonant_here && was_vowel {
            count += 1;
        }
        was_vowel = !is_consonant_here;
        was_consonant = is_consonant_here;
    }
    count
}

/// Whether `stem` contains a vowel (Porter's `*v*`).
fn has_vowel(stem: &[u8]) -> bool {
    (0..stem.len()).any(|pos| !is_consonant(stem, pos))
}

/// Whether `word` ends with a double consonant (Porter's `*d`).
fn ends_double_consonant(word: &[u8]) -> bool {
    let length = word.len();
    length >= 2 && word[length - 1] == word[length - 2] && is_consonant(word, length - 1)
}

/// Whether `word` ends consonant-vowel-consonant, the last not w, x or y (Porter's `*o`).
fn ends_cvc(word: &[u8]) -> bool {
    let length = word.len();
    length >= 3
        && is_consonant(word, length - 1)
        && !is_consonant(word, length - 2)
        && is_consonant(word, length - 3)
        && !matches!(word[length - 1], b'w' | b'x' | b'y')
}

/// The length of the stem left when `suffix` is removed, if `word` ends with `suffix`.
fn stem_length(word: &[u8], suffix: &[u8]) -> Option<usize> {
    word.ends_with(suffix).then(|| word.len() - suffix.len())
}

fn replace_suffix(word: &mut Vec<u8>, stem_length: usize, replacement: &[u8]) {
    word.truncate(stem_length);
    word.extend_from_slice(replacement);
}

/// Applies the first rule of `rules` whose suffix ends `word`: the suffix is replaced when the
/// stem's measure exceeds `minimum_measure`. Later rules are not tried once a suffix matched,
/// whether or not it was replaced (as in the paper: the longest matching suffix decides).
fn apply_first_rule(word: &mut Vec<u8>, rules: &[(&[u8], &[u8])], minimum_measure: usize) {
    for &(suffix, replacement) in rules {
        if let Some(length) = stem_length(word, suffix) {
            if measure(&word[..length]) > minimum_measure {
                replace_suffix(word, length, replacement);
            }
            return;
        }
    }
}

/// Step 1a (plurals) and 1b (-eed, -ed, -ing).
fn step_1ab(word: &mut Vec<u8>) {
    if word.last() == Some(&b's') {
        if word.ends_with(b"sses") {
            word.truncate(word.len() - 2);
        } else if word.ends_with(b"ies") {
            replace_suffix(word, word.len() - 3, b"i");
        } else if word.len() >= 2 && word[word.len() - 2] != b's' {
            word.pop();
        }
    }
    if let Some(length) = stem_length(word, b"eed") {
        if measure(&word[..length]) > 0 {
            word.pop();
        }
        return;
    }
    let Some(length) = stem_length(word, b"ed").or_else(|| stem_length(word, b"ing")) else {
        return;
    };
    if !has_vowel(&word[..length]) {
        return;
    }
    word.truncate(length);
    if word.ends_with(b"at") || word.ends_with(b"bl") || word.ends_with(b"iz") {
        word.push(b'e');
    } else if ends_double_consonant(word) {
        if !matches!(word.last(), Some(b'l' | b's' | b'z')) {
            word.pop();
        }
    } else if measure(word) == 1 && ends_cvc(word) {
        word.push(b'e');
    }
}

/// Step 1c: a final y becomes i when the stem has a vowel.
fn step_1c(word: &mut [u8]) {
    if let Some(length) = stem_length(word, b"y") {
        if has_vowel(&word[..length]) {
            word[length] = b'i';
        }
    }
}

/// Step 2: double suffixes to single ones, when the stem has m > 0. Grouped as in the
/// reference implementation; no suffix here is a proper suffix of an earlier one in a way that
/// would change which rule matches first.
fn step_2(word: &mut Vec<u8>) {
    const RULES: &[(&[u8], &[u8])] = &[
        (b"ational", b"ate"),
        (b"tional", b"tion"),
        (b"enci", b"ence"),
        (b"anci", b"ance"),
        (b"izer", b"ize"),
        (b"bli", b"ble"), // departure from the paper's "abli" -> "able"
        (b"alli", b"al"),
        (b"entli", b"ent"),
        (b"eli", b"e"),
        (b"ousli", b"ous"),
        (b"ization", b"ize"),
        (b"ation", b"ate"),
        (b"ator", b"ate"),
        (b"alism", b"al"),
        (b"iveness", b"ive"),
        (b"fulness", b"ful"),
        (b"ousness", b"ous"),
        (b"aliti", b"al"),
        (b"iviti", b"ive"),
        (b"biliti", b"ble"),
        (b"logi", b"log"), // departure: not in the paper
    ];
    apply_first_rule(word, RULES, 0);
}

/// Step 3: -ic-, -full, -ness and similar, when the stem has m > 0.
fn step_3(word: &mut Vec<u8>) {
    const RULES: &[(&[u8], &[u8])] = &[
        (b"icate", b"ic"),
        (b"ative", b""),
        (b"alize", b"al"),
        (b"iciti", b"ic"),
        (b"ical", b"ic"),
        (b"ful", b""),
        (b"ness", b""),
    ];
    apply_first_rule(word, RULES, 0);
}

/// Step 4: removes -ant, -ence and similar when the stem has m > 1.
fn step_4(word: &mut Vec<u8>) {
    const SUFFIXES: &[&[u8]] = &[
        b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent",
        b"ion", b"ou", b"ism", b"ate", b"iti", b"ous", b"ive", b"ize",
    ];
    for &suffix in SUFFIXES {
        if let Some(length) = stem_length(word, suffix) {
            // -ion is removed only after s or t.
            let is_removable =
                suffix != b"ion" || matches!(word[..length].last(), Some(b's' | b't'));
            if is_removable && measure(&word[..length]) > 1 {
                word.truncate(length);
            }
            return;
        }
    }
}

/// Step 5: removes a final -e (m > 1, or m = 1 and not *o) and turns -ll into -l when m > 1.
fn step_5(word: &mut Vec<u8>) {
    if word.last() == Some(&b'e') {
        let stem = &word[..word.len() - 1];
        let stem_measure = measure(stem);
        if stem_measure > 1 || (stem_measure == 1 && !ends_cvc(stem)) {
            word.pop();
        }
    }
    if word.last() == Some(&b'l') && ends_double_consonant(word) && measure(word) > 1 {
        word.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_stems(pairs: &[(&str, &str)]) {
        let wrong: Vec<String> = pairs
            .iter()
            .filter(|(word, expected)| stem(word) != *expected)
            .map(|(word, expected)| format!("{word}: expected {expected}, found {}", stem(word)))
            .collect();
        assert!(wrong.is_empty(), "wrong stems:\n{}", wrong.join("\n"));
    }

    /// Examples from the paper and from the comments of the reference implementation.
    #[test]
    fn stems_the_papers_examples() {
        assert_stems(&[
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("disabled", "disabl"),
            ("matting", "mat"),
            ("mating", "mate"),
            ("meeting", "meet"),
            ("milling", "mill"),
            ("messing", "mess"),
            ("meetings", "meet"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("digitizer", "digit"),
            ("generalization", "gener"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("running", "run"),
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("electrical", "electr"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
        ]);
    }

    /// Words where Porter's original algorithm and Porter2 (Snowball English) differ; the
    /// expected stems are those of Porter's own output for his test vocabulary.
    #[test]
    fn stems_as_the_original_not_porter2() {
        assert_stems(&[
            ("general", "gener"),
            ("generous", "gener"),
            ("dying", "dy"),
            ("lying", "ly"),
            ("tying", "ty"),
            ("cry", "cry"),
            ("news", "new"),
            ("this", "thi"),
            ("was", "wa"),
        ]);
    }

    /// Short words and the reference implementation's departures from the paper.
    #[test]
    fn keeps_short_words_and_follows_the_departures() {
        assert_stems(&[
            ("a", "a"),
            ("as", "as"),
            ("is", "is"),
            ("ies", "i"),
            ("ion", "ion"),
            ("sing", "sing"),
            ("apology", "apolog"),
            ("corruptibly", "corrupt"),
            ("sensibility", "sensibl"),
        ]);
    }

    /// Every word of Porter's test vocabulary that `porter-stemmer` 0.1.2 stems wrongly, with
    /// the stem from Porter's `output.txt`.
    #[test]
    fn stems_the_words_other_implementations_get_wrong() {
        assert_stems(&[
            ("agreement", "agreement"),
            ("apology", "apolog"),
            ("argument", "argument"),
            ("arguments", "argument"),
            ("assemblies", "assembl"),
            ("assembly", "assembl"),
            ("battlements", "battlement"),
            ("bodements", "bodement"),
            ("casement", "casement"),
            ("casements", "casement"),
            ("cerements", "cerement"),
            ("complement", "complement"),
            ("complements", "complement"),
            ("compliment", "compliment"),
            ("compliments", "compliment"),
            ("corruptibly", "corrupt"),
            ("couplement", "couplement"),
            ("cry", "cry"),
            ("crying", "cry"),
            ("dissembly", "dissembl"),
            ("document", "document"),
            ("dry", "dry"),
            ("dumbly", "dumbl"),
            ("dyed", "dy"),
            ("dying", "dy"),
            ("element", "element"),
            ("elements", "element"),
            ("excrement", "excrement"),
            ("excrements", "excrement"),
            ("fehemently", "fehement"),
            ("firmament", "firmament"),
            ("fly", "fly"),
            ("flying", "fly"),
            ("forcibly", "forcibl"),
            ("fry", "fry"),
            ("hardiment", "hardiment"),
            ("horribly", "horribl"),
            ("humbly", "humbl"),
            ("ignobly", "ignobl"),
            ("immoment", "immoment"),
            ("implements", "implement"),
            ("infallibly", "infal"),
            ("instrument", "instrument"),
            ("instruments", "instrument"),
            ("judgement", "judgement"),
            ("jurement", "jurement"),
            ("lineament", "lineament"),
            ("lineaments", "lineament"),
            ("lying", "ly"),
            ("merriment", "merriment"),
            ("merriments", "merriment"),
            ("monument", "monument"),
            ("monuments", "monument"),
            ("muniments", "muniment"),
            ("nimbly", "nimbl"),
            ("nly", "nly"),
            ("nutriment", "nutriment"),
            ("ornament", "ornament"),
            ("ornaments", "ornament"),
            ("parliament", "parliament"),
            ("pavement", "pavement"),
            ("ply", "ply"),
            ("possibly", "possibl"),
            ("promptement", "promptement"),
            ("pry", "pry"),
            ("prying", "pry"),
            ("rabblement", "rabblement"),
            ("regiment", "regiment"),
            ("regiments", "regiment"),
            ("rudiments", "rudiment"),
            ("sacrament", "sacrament"),
            ("sensibly", "sensibl"),
            ("shy", "shy"),
            ("sky", "sky"),
            ("sly", "sly"),
            ("slys", "sly"),
            ("spy", "spy"),
            ("spying", "spy"),
            ("sty", "sty"),
            ("subduements", "subduement"),
            ("supplyment", "supplyment"),
            ("tenement", "tenement"),
            ("tenements", "tenement"),
            ("terribly", "terribl"),
            ("testament", "testament"),
            ("thy", "thy"),
            ("tournaments", "tournament"),
            ("try", "try"),
            ("tying", "ty"),
            ("vehement", "vehement"),
            ("visibly", "visibl"),
            ("vitement", "vitement"),
            ("vizaments", "vizament"),
            ("why", "why"),
            ("wry", "wry"),
            ("wrying", "wry"),
        ]);
    }

    #[test]
    fn survives_long_runs_of_y() {
        let word = "y".repeat(100_000);
        let stemmed = stem(&word);
        assert!(stemmed.len() <= word.len());
    }
}
