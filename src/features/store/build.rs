//! Building a store (`reusesim index`): one streaming pass over the corpus, which writes every
//! document's id into the store and its terms, hash and line into scratch files beside it,
//! then the sections that need the finished vocabulary, then the id table, region by region.
//! Memory is the vocabulary, one batch of documents, one chunk of vectors and one region of the
//! table, whatever the corpus size. Everything is written under `<STORE>.partial/` and the
//! finished store renamed into place, so a build cut short leaves no store that looks whole.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::files::{read_values, Scratch, ScratchReader, SectionWriter, Workspace};
use super::format::{
    corpus_roles, CorpusFile, Header, LayoutRecord, Sections, Span, STORE_FORMAT_VERSION,
};
use super::reader::FeatureStore;
use super::spill::{SpillSink, Spilled, SpilledChunk};
use super::table::{home_bits, home_slot, Placed, Region, REGION_SLOTS};
use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::base::progress::StagedProgress;
use crate::features::text::pass::{CorpusPass, Refusal};
use crate::features::text::weighting::Vocabulary;
use crate::features::text::FEATURE_RULES_VERSION;
use crate::io::corpus::CorpusLayout;

/// A count of the store's, kept in `u64` so that stores do not depend on the platform, as
/// progress reports it.
fn to_count(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildOutcome {
    /// The store was built.
    Built,
    /// A store built from the same corpus files (by sha256), read the same way, under the same
    /// rules, was already there; it was left as it is.
    UpToDate,
}

/// Builds the feature store of the corpus made of `inputs` (each a file or a folder, read in
/// the order given) laid out as `layout`, at `out`, unless an up-to-date store is already
/// there. `progress` hears of the documents read, then weighted, then of the id table's regions
/// filled.
///
/// # Errors
/// The corpus reader's errors (naming file and line), a document id seen twice (naming the
/// file and line of both), two input files with the same name, and [`Error::Write`] when the
/// store cannot be written.
pub fn build_store(
    inputs: &[PathBuf],
    layout: &CorpusLayout,
    out: &Path,
    progress: StagedProgress<'_>,
) -> Result<BuildOutcome> {
    build_in_regions(inputs, layout, out, progress, REGION_SLOTS)
}

/// [`build_store`] with id-table regions of at most `region_slots` slots (small in tests, so
/// that documents overflow from region to region).
pub(super) fn build_in_regions(
    inputs: &[PathBuf],
    layout: &CorpusLayout,
    out: &Path,
    progress: StagedProgress<'_>,
    region_slots: u64,
) -> Result<BuildOutcome> {
    let roles = corpus_roles(inputs)?;
    if is_up_to_date(out, &roles, layout)? {
        return Ok(BuildOutcome::UpToDate);
    }
    let workspace = Workspace::create(out)?;
    let mut store = SectionWriter::create(&workspace.store_path())?;
    // The corpus is read in one pass, so the number of its documents is not known before the end.
    let documents_read = |documents| progress("reading documents", to_count(documents), 0);
    let mut sink = SpillSink::create(&workspace, &mut store, &documents_read)?;
    let mut pass = CorpusPass::default();
    let mut digests = Vec::new();
    for input in inputs {
        pass.add_corpus(input, layout, &mut sink, Some(&mut digests))?;
    }
    let spilled = sink.finish()?;
    let vocabulary = pass.finish()?;
    let corpus = roles
        .iter()
        .zip(&digests)
        .map(|((role, _), digest)| CorpusFile {
            role: role.clone(),
            bytes: digest.bytes,
            sha256: digest.sha256.clone(),
        })
        .collect();
    let header = write_sections(
        &mut store,
        &workspace,
        spilled,
        &vocabulary,
        progress,
        region_slots,
    )?;
    let header = Header {
        corpus,
        layout: LayoutRecord::of(layout),
        ..header
    };
    store.finish(&header)?;
    workspace.publish(out)?;
    Ok(BuildOutcome::Built)
}

/// Whether the store at `out` was built from exactly these files (by length and sha256), read
/// the same way, in this version's format and feature rules.
fn is_up_to_date(out: &Path, roles: &[(String, PathBuf)], layout: &CorpusLayout) -> Result<bool> {
    let Ok(store) = FeatureStore::open(out) else {
        return Ok(false);
    };
    let recorded = &store.header().corpus;
    if recorded.len() != roles.len() || store.header().layout != LayoutRecord::of(layout) {
        return Ok(false);
    }
    for ((role, file), recorded) in roles.iter().zip(recorded) {
        let (sha256, bytes) = crate::io::gz::file_digest(file)?;
        if *role != recorded.role || bytes != recorded.bytes || sha256 != recorded.sha256 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Writes every section after `names`, and returns the header without its corpus and layout.
fn write_sections(
    store: &mut SectionWriter,
    workspace: &Workspace,
    spilled: Spilled,
    vocabulary: &Vocabulary,
    progress: StagedProgress<'_>,
    region_slots: u64,
) -> Result<Header> {
    let mut sections = Sections {
        names: spilled.names,
        ..Sections::default()
    };
    let start = store.begin_section()?;
    store.write(&0_u64.to_le_bytes())?;
    store.copy(&spilled.name_ends)?;
    sections.name_offsets = store.span_from(start);

    let (vectors, vector_ends, entry_count) =
        write_vectors(store, workspace, &spilled, vocabulary, progress)?;
    sections.vectors = vectors;
    let start = store.begin_section()?;
    store.write(&0_u64.to_le_bytes())?;
    store.copy(&vector_ends)?;
    sections.vector_offsets = store.span_from(start);

    write_vocabulary(store, vocabulary, &mut sections)?;
    let bits = home_bits(spilled.documents);
    sections.id_table = write_id_table(store, &spilled, &sections, bits, region_slots, progress)?;
    Ok(Header {
        format_version: STORE_FORMAT_VERSION,
        feature_rules: FEATURE_RULES_VERSION,
        reusesim: env!("CARGO_PKG_VERSION").to_string(),
        document_count: spilled.documents,
        feature_count: vocabulary.terms.len() as u64,
        entry_count,
        id_table_bits: bits,
        corpus: Vec::new(),
        layout: LayoutRecord::of(&CorpusLayout::default()),
        sections,
    })
}

/// The documents weighted at once: enough to keep both cores busy, few enough that their terms
/// stay small in memory.
const WEIGHTING_CHUNK_DOCUMENTS: usize = 1 << 14;

/// Writes the `vectors` section from the spilled terms, a chunk of documents at a time: the
/// next chunk is read and weighted on every core while the last one is written. Returns the
/// section with the scratch file of the vectors' ends (in entries) and the number of entries.
fn write_vectors(
    store: &mut SectionWriter,
    workspace: &Workspace,
    spilled: &Spilled,
    vocabulary: &Vocabulary,
    progress: StagedProgress<'_>,
) -> Result<(Span, ScratchReader, u64)> {
    let start = store.begin_section()?;
    let mut lengths = spilled.term_bytes.sequential()?;
    let mut terms = spilled.terms.sequential()?;
    let mut vector_ends = Scratch::create(workspace.scratch("vector-ends"))?;
    let mut entries = 0_u64;
    let mut written = 0_u64;
    let mut weighted: Vec<Vec<u8>> = Vec::new();
    loop {
        let next =
            WEIGHTING_CHUNK_DOCUMENTS.min((spilled.documents - written) as usize - weighted.len());
        let (wrote, read) = rayon::join(
            || -> Result<()> {
                for bytes in &weighted {
                    store.write(bytes)?;
                    entries += (bytes.len() / super::format::ENTRY_BYTES) as u64;
                    vector_ends.write(&entries.to_le_bytes())?;
                }
                Ok(())
            },
            || -> Result<Vec<Vec<u8>>> {
                let chunk = SpilledChunk::read(spilled, &mut lengths, &mut terms, next)?;
                Ok(chunk.weighted(vocabulary))
            },
        );
        wrote?;
        written += weighted.len() as u64;
        progress(
            "weighting documents",
            to_count(written),
            to_count(spilled.documents),
        );
        weighted = read?;
        if weighted.is_empty() {
            break;
        }
    }
    Ok((store.span_from(start), vector_ends.into_reader()?, entries))
}

/// Writes the `terms`, `term_offsets` and `document_frequencies` sections.
fn write_vocabulary(
    store: &mut SectionWriter,
    vocabulary: &Vocabulary,
    sections: &mut Sections,
) -> Result<()> {
    let start = store.begin_section()?;
    let mut ends = vec![0_u64];
    for term in &vocabulary.terms {
        store.write(term.as_bytes())?;
        ends.push(store.offset() - start);
    }
    sections.terms = store.span_from(start);
    let start = store.begin_section()?;
    for end in ends {
        store.write(&end.to_le_bytes())?;
    }
    sections.term_offsets = store.span_from(start);
    let start = store.begin_section()?;
    for &document_frequency in &vocabulary.document_frequencies {
        store.write(&document_frequency.to_le_bytes())?;
    }
    sections.document_frequencies = store.span_from(start);
    Ok(())
}

/// Writes the id table (see [`super::table`]) one region at a time: each region's documents
/// are found by a scan of the spilled hashes, and those that overflow a region go on into the
/// next, then into slots after the last.
fn write_id_table(
    store: &mut SectionWriter,
    spilled: &Spilled,
    sections: &Sections,
    bits: u32,
    region_slots: u64,
    progress: StagedProgress<'_>,
) -> Result<Span> {
    let names = NameReader {
        store: store.reader()?,
        path: store.path().to_path_buf(),
        names: sections.names,
        ends: &spilled.name_ends,
    };
    let start = store.begin_section()?;
    let capacity = 1_u64 << bits;
    let region_length = capacity.min(region_slots);
    let regions = capacity / region_length;
    let mut carried: Vec<(u32, u64)> = Vec::new();
    for index in 0..regions {
        let mut region = Region::new(index * region_length, region_length);
        let mut overflow = Vec::new();
        let first_slot = region.first_slot;
        for (position, hash) in carried.drain(..) {
            insert(&mut region, first_slot, position, hash, &names, spilled)?
                .then(|| overflow.push((position, hash)));
        }
        let mut hashes = spilled.hashes.sequential()?;
        let end = region.first_slot + region_length;
        let mut position = 0_u32;
        let mut left = spilled.documents;
        while left > 0 {
            let chunk = HASH_CHUNK.min(left as usize);
            for hash in read_values(&mut hashes, chunk, 8, &spilled.hashes.path)? {
                let home = home_slot(hash, bits);
                if (region.first_slot..end).contains(&home) {
                    insert(&mut region, home, position, hash, &names, spilled)?
                        .then(|| overflow.push((position, hash)));
                }
                position += 1;
            }
            left -= chunk as u64;
        }
        write_slots(store, &region.slots)?;
        carried = overflow;
        progress("filling id regions", to_count(index + 1), to_count(regions));
    }
    // What overflowed the last region takes the slots after it, in order.
    let tail: Vec<u32> = carried.iter().map(|&(position, _)| position + 1).collect();
    write_slots(store, &tail)?;
    // A probe past the last slot ends at this empty one.
    write_slots(store, &[0])?;
    Ok(store.span_from(start))
}

/// The hashes read at once while the id table is filled.
const HASH_CHUNK: usize = 1 << 16;

fn write_slots(store: &mut SectionWriter, slots: &[u32]) -> Result<()> {
    let bytes: Vec<u8> = slots.iter().flat_map(|slot| slot.to_le_bytes()).collect();
    store.write(&bytes)
}

/// Inserts a document into `region`, probing from `from`; `true` when it overflowed the region.
///
/// # Errors
/// The duplicate-id error when a document of the same id is already there.
fn insert(
    region: &mut Region,
    from: u64,
    position: u32,
    hash: u64,
    names: &NameReader,
    spilled: &Spilled,
) -> Result<bool> {
    let mut placed = region.insert(from, position, hash);
    while let Placed::SameHash(first) = placed {
        if names.name(first)? == names.name(position)? {
            return Err(duplicate_error(
                spilled,
                first,
                position,
                &names.name(position)?,
            ));
        }
        placed = region.insert_distinct(from, position, hash);
    }
    Ok(matches!(placed, Placed::Overflow))
}

/// Reads document ids back from the store being written.
struct NameReader<'s> {
    store: File,
    /// The store's path, to name in errors.
    path: PathBuf,
    names: Span,
    ends: &'s ScratchReader,
}

impl NameReader<'_> {
    fn name(&self, position: u32) -> Result<Vec<u8>> {
        let start = match position {
            0 => 0,
            _ => self.ends.u64_at(u64::from(position) - 1)?,
        };
        let end = self.ends.u64_at(u64::from(position))?;
        let mut bytes = vec![0_u8; (end - start) as usize];
        self.store
            .read_exact_at(&mut bytes, self.names.offset + start)
            .map_err(Error::reading(&self.path))?;
        Ok(bytes)
    }
}

/// The error for a document id at `again` that was first at `first`, naming both places.
fn duplicate_error(spilled: &Spilled, first: u32, again: u32, name: &[u8]) -> Error {
    let place = |position: u32| -> Result<(PathBuf, usize)> {
        let file_index = spilled
            .files
            .partition_point(|&(first_document, _)| first_document <= u64::from(position))
            - 1;
        let line = spilled.lines.u64_at(u64::from(position))?;
        Ok((spilled.files[file_index].1.clone(), line as usize))
    };
    let name = String::from_utf8_lossy(name);
    match (place(first), place(again)) {
        (Ok((first_file, first_line)), Ok((file, line))) => ParseError::new(
            file,
            line,
            ParseErrorKind::Invalid(format!(
                "{}; first at {}:{first_line}",
                Refusal::DuplicateDocument.kind(&name),
                first_file.display()
            )),
        )
        .into(),
        (Err(error), _) | (_, Err(error)) => error,
    }
}
