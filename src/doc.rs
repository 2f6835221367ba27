//! The common document model: what every reader produces and the one XHTML writer consumes.
//!
//! A feature (footnotes, ruby, listings with captions) is modelled once here and written once in
//! `xhtml::write`, whatever the source format. Each variant's comment shows the markup that
//! produces it in Markdown (md), Re:VIEW (re) and DocBook (db). Every node carries the position of
//! the source text it came from, so later stages can report problems there.

/// 1-based line and column in the chapter's source file (the file is `Document::source`): the
/// same position as the XML tree's.
pub use crate::dom::Pos;

/// One source file: a chapter, a preface, an appendix.
/// What separates an index term's levels (re `親<<>>子`; the DocBook reader joins its levels
/// so too), in the model so that readers and the index share it.
pub const INDEX_LEVEL_SEPARATOR: &str = "<<>>";

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Document {
    /// The source file, relative to the book folder (for messages).
    pub source: std::path::PathBuf,
    /// Language of this chapter when it differs from the book's (md: `lang:` front matter).
    pub lang: Option<String>,
    /// The chapter's title when it has no title heading (md: `title:` front matter); not
    /// shown in the text, only where the book names the chapter (contents, links).
    #[serde(default)]
    pub title: Option<String>,
    pub blocks: Vec<Block>,
    /// Footnote bodies, in order of definition (md: `[^x]: …`; re: `//footnote`; db: `footnote`).
    pub footnotes: Vec<Footnote>,
    /// Endnote bodies, in order of definition (re: `//endnote`); printed by
    /// [`BlockKind::Endnotes`].
    pub endnotes: Vec<Footnote>,
}

impl Document {
    pub fn new(source: impl Into<std::path::PathBuf>) -> Self {
        Document {
            source: source.into(),
            lang: None,
            title: None,
            blocks: Vec::new(),
            footnotes: Vec::new(),
            endnotes: Vec::new(),
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Footnote {
    /// The label as written (md: `1` in `[^1]`), unique within the document.
    pub label: String,
    pub blocks: Vec<Block>,
    pub pos: Pos,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    pub pos: Pos,
}

impl Block {
    pub fn new(kind: BlockKind, pos: Pos) -> Self {
        Block { kind, pos }
    }
}

/// Inline content: a run of text with markup.
pub type Inlines = Vec<Inline>;

/// The large kinds (listings, tables, figures, math, bibliography entries) are boxed, so a block
/// takes 96 bytes, not 192: most blocks are paragraphs and list items.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub enum BlockKind {
    /// md: `## Title {#id}`; re: `== [nonum]{id} Title`; db: `<sect1><title>`.
    Heading(Heading),
    /// md: a paragraph; re: lines joined until a blank line; db: `para`, `simpara`.
    Para(Inlines),
    /// A paragraph with a class: re `//noindent` (`noindent`), `//flushright` (`flushright`),
    /// `//centering` (`center`); db `para role=…`.
    StyledPara { class: String, content: Inlines },
    /// md: `- a` / `1. a`; re: ` * a` / ` 1. a`; db: `itemizedlist`, `orderedlist`.
    List(List),
    /// re: ` : term`; db: `variablelist`; md: none in CommonMark.
    DefinitionList(Vec<DefinitionItem>),
    /// md: fenced code with a language; re: `//list[id][caption][lang]`, `//emlist`, `//cmd`;
    /// db: `programlisting`, `screen`.
    Code(Box<Code>),
    /// md: pipe tables; re: `//table`; db: CALS or HTML tables.
    Table(Box<Table>),
    /// md: an image alone in a paragraph; re: `//image[id][caption]`; db: `figure`.
    Figure(Box<Figure>),
    /// md: `> …`; re: `//quote`; db: `blockquote`, `epigraph`.
    Quote {
        blocks: Vec<Block>,
        attribution: Option<Inlines>,
    },
    /// re: `//note`, `//tip`, `//warning`…; db: `note`, `tip`, `warning`…; md: none.
    Admonition {
        kind: AdmonitionKind,
        title: AdmonitionTitle,
        blocks: Vec<Block>,
    },
    /// re: `==[column] Title` … `==[/column]`; db: `sidebar`; md: none.
    Sidebar {
        id: Option<String>,
        title: Option<Inlines>,
        /// The title is a heading of this level, as Re:VIEW writes a `==[column]` title (else
        /// a titled paragraph: db `sidebar`).
        heading: Option<u8>,
        blocks: Vec<Block>,
    },
    /// Display math. re: `//texequation`; db: `equation` with MathML; md: none.
    Math(Box<Math>),
    /// A styled container: re: `//lead`, `//flushright`, `//centering`; db: `para role=…`.
    Div { class: String, blocks: Vec<Block> },
    /// md: an HTML element opened in one block and closed in a later one (`<section>` …
    /// Markdown … `</section>`, `<details>`): the element as written (attributes cleaned, its
    /// own children before the first Markdown block), around the blocks between.
    Wrapped {
        element: Box<crate::dom::Element>,
        blocks: Vec<Block>,
    },
    /// md: `---`; re: `//hr`; db: none.
    Rule,
    /// re: `//pagebreak` (a forced break in the layout, not a print page number).
    PageBreak,
    /// Where a page of the print edition begins, between blocks: db `<beginpage pagenum="N"/>`,
    /// `<?page N?>`, `<anchor role="pagebreak" xreflabel="N"/>` (md and re write raw XHTML,
    /// which the resolver marks up in place).
    PrintPage(PrintPage),
    /// A link target with no content. re: `//label[id]`; db: `anchor`.
    Anchor(String),
    /// Where a chapter's endnotes are printed. re: `//printendnotes`.
    Endnotes,
    /// Where the book's index goes: db an `index` with no entries of its own. The generated
    /// index page takes the place of a chapter holding nothing else.
    Index,
    /// A bibliography entry. re: `//bibpaper[id][caption]{…}`; db: `biblioentry`.
    BibItem(Box<BibItem>),
    /// Raw XHTML, already checked to be well-formed (md: an HTML block; re: `//raw[|html|…]`).
    Raw(Vec<crate::dom::Node>),
}

/// A print page-break marker: the page's number as the print edition shows it (`12`, `xiv`).
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct PrintPage {
    pub label: String,
    /// The marker's id: the author's (db `anchor xml:id`), else one the resolver gives
    /// (`page-12`), unique in the book.
    pub id: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct BibItem {
    pub id: String,
    /// The entry's number (`[1]`), filled by the resolver (`xref`), book-wide; a reader may
    /// give a label instead (db: the entry's `abbrev` or `xreflabel`).
    pub number: Option<String>,
    pub caption: Inlines,
    pub blocks: Vec<Block>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Heading {
    /// 1 is a chapter title, 2 a section, and so on.
    pub level: u8,
    /// The id as written (md `{#id}`, re `{label}`, db `id=`); one is generated when absent.
    pub id: Option<String>,
    /// Whether the heading takes a number (re `[nonum]` turns it off).
    pub numbered: bool,
    /// Whether the heading appears in the table of contents (re `[notoc]`).
    pub in_toc: bool,
    /// Whether the heading is shown in the text (re `[nodisp]`: only in the table of contents).
    pub shown: bool,
    /// The number label (`第1章`, `1.2`), filled by the resolver (`xref`).
    pub number: Option<String>,
    pub content: Inlines,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct List {
    /// `None` for a bulleted list; `Some(start)` for a numbered one.
    pub start: Option<u64>,
    pub items: Vec<Vec<Block>>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct DefinitionItem {
    pub term: Inlines,
    /// One or more definitions of the term, each its own `<dd>`.
    pub definitions: Vec<Vec<Block>>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Code {
    /// What kind of listing it is, which decides numbering and class names.
    pub style: CodeStyle,
    pub id: Option<String>,
    /// The number, filled by the resolver (`xref`).
    pub number: Option<Number>,
    pub caption: Option<Inlines>,
    pub language: Option<String>,
    /// First line number when the listing is numbered (re `//listnum`, `//firstlinenum`).
    pub first_line_number: Option<u32>,
    pub text: String,
    /// The same text with inline markup, when the source has some (re: `@<b>` in `//cmd`).
    /// Lines are separated by `\n` in its text runs.
    pub markup: Option<Inlines>,
}

/// A numbered object's number, in the two forms Re:VIEW writes it.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Number {
    /// As references show it (`図1.1`: the locale's `format_number`).
    pub label: String,
    /// As the caption starts with it (`図1.1:`: its `format_number_header`).
    pub head: String,
}

/// Kinds of code listing. Only [`CodeStyle::List`] takes a number.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeStyle {
    /// A numbered listing with an id (re `//list`, `//listnum`).
    List,
    /// An unnumbered example (md fenced code; re `//emlist`, `//emlistnum`; db `programlisting`).
    Example,
    /// A terminal session (re `//cmd`; db `screen`).
    Command,
    /// A source file (re `//source`).
    Source,
    /// Syntax or a boxed text (re `//box`; db `synopsis`).
    Box,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Table {
    pub id: Option<String>,
    /// The number, filled by the resolver (`xref`).
    pub number: Option<Number>,
    pub caption: Option<Inlines>,
    /// Header rows (md: the first row; re: rows above `----`; db: `thead`).
    pub head: Vec<Row>,
    pub body: Vec<Row>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub cells: Vec<Cell>,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Cell {
    pub content: Inlines,
    /// The cell's content as blocks, when it holds one a line of text cannot (db: a
    /// `programlisting` in an `entry`); `content` is then empty.
    #[serde(default)]
    pub blocks: Vec<Block>,
    /// A header cell (`th`) outside the header rows (re: the first cell of each row when the
    /// table has no header separator).
    pub header: bool,
    pub align: Align,
    pub colspan: u32,
    pub rowspan: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    Default,
    Left,
    Center,
    Right,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Figure {
    /// Whether the figure takes a number (re `//indepimage` does not).
    pub numbered: bool,
    /// A table given as an image (re `//imgtable`): numbered with the tables.
    pub as_table: bool,
    /// Size hint as a class (re `scale=0.5` → `width-050per`).
    pub class: Option<String>,
    /// Text shown instead when the image is missing (re: the body of `//image`).
    pub fallback: Option<String>,
    pub id: Option<String>,
    /// The number, filled by the resolver (`xref`).
    pub number: Option<Number>,
    pub caption: Option<Inlines>,
    pub image: Image,
}

/// An image reference. `src` is as written in the source, relative to that file; the resolver
/// maps it to a resource in the book.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Image {
    pub src: String,
    pub alt: String,
    /// `src` is a Re:VIEW image id, found by Re:VIEW's lookup rules in the image folder,
    /// rather than a path relative to the source file.
    pub by_id: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Math {
    pub id: Option<String>,
    pub caption: Option<Inlines>,
    /// The number, filled by the resolver (`xref`).
    pub number: Option<Number>,
    /// The TeX source, kept as the fallback text.
    pub tex: String,
    /// Presentation MathML: the source's (db `mml:math`), or converted from the TeX (re
    /// `//texequation`); `None` when it does not convert.
    pub mathml: Option<Vec<crate::dom::Node>>,
}

/// What a cross-reference points at, which decides its generated text.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// Chapter number (`第1章`). re `@<chap>`.
    Chapter,
    /// Chapter title. re `@<title>`.
    ChapterTitle,
    /// Number and title (`第1章「…」`). re `@<chapref>`.
    ChapterRef,
    /// re `@<list>`.
    Listing,
    /// re `@<img>`.
    Image,
    /// Number and caption. re `@<imgref>`.
    ImageRef,
    /// re `@<table>`.
    Table,
    /// re `@<eq>`.
    Equation,
    /// Number and caption of a section (`「2.1 …」`). re `@<hd>`, `@<secref>`.
    Heading,
    /// Section number only. re `@<sec>`.
    SectionNumber,
    /// Section caption only. re `@<sectitle>`.
    SectionTitle,
    /// re `@<column>`.
    Column,
    /// re `@<bib>`.
    Bib,
    /// Any element by id, with the target's title or number (db `xref`).
    Any,
}

/// What heads a note-style box: whether a box without a title shows its kind's word is the
/// reader's decision (its format's rule), not the writer's.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub enum AdmonitionTitle {
    /// The title its author wrote.
    Written(Inlines),
    /// None written, and the kind's word is shown (ノート, Note), as DocBook's stylesheets
    /// and GitHub's alerts show one.
    KindWord,
    /// None written and none shown, as Re:VIEW writes a caption-less `//note`.
    Untitled,
}

impl AdmonitionTitle {
    /// A written title, or none (Re:VIEW's rule); readers that show the kind's word use
    /// [`AdmonitionTitle::or_kind_word`].
    pub fn written(title: Option<Inlines>) -> Self {
        title.map_or(AdmonitionTitle::Untitled, AdmonitionTitle::Written)
    }

    /// A written title, else the kind's word.
    pub fn or_kind_word(title: Option<Inlines>) -> Self {
        title.map_or(AdmonitionTitle::KindWord, AdmonitionTitle::Written)
    }

    pub fn inlines_mut(&mut self) -> Option<&mut Inlines> {
        match self {
            AdmonitionTitle::Written(t) => Some(t),
            _ => None,
        }
    }
}

/// The note-style boxes of Re:VIEW and DocBook.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmonitionKind {
    Note,
    Memo,
    Tip,
    Info,
    Warning,
    Important,
    Caution,
    Notice,
}

impl AdmonitionKind {
    pub fn class(self) -> &'static str {
        match self {
            AdmonitionKind::Note => "note",
            AdmonitionKind::Memo => "memo",
            AdmonitionKind::Tip => "tip",
            AdmonitionKind::Info => "info",
            AdmonitionKind::Warning => "warning",
            AdmonitionKind::Important => "important",
            AdmonitionKind::Caution => "caution",
            AdmonitionKind::Notice => "notice",
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Inline {
    pub kind: InlineKind,
    pub pos: Pos,
}

impl Inline {
    pub fn new(kind: InlineKind, pos: Pos) -> Self {
        Inline { kind, pos }
    }

    pub fn text(text: impl Into<String>, pos: Pos) -> Self {
        Inline {
            kind: InlineKind::Text(text.into()),
            pos,
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub enum InlineKind {
    Text(String),
    /// md: `*a*`; re: `@<i>`, `@<em>`; db: `emphasis`.
    Emphasis(Inlines),
    /// md: `**a**`; re: `@<strong>`; db: `emphasis role="strong"`.
    Strong(Inlines),
    /// Bold without importance (`<b>`). re: `@<b>`; db: `emphasis role="bold"`.
    Bold(Inlines),
    /// Italic without emphasis (`<i>`). re: `@<i>`; db: `foreignphrase`, `citetitle`.
    Italic(Inlines),
    /// A keyword, with an optional gloss. re: `@<kw>{word, alt}`; db: `firstterm`.
    Keyword {
        word: Inlines,
        alt: Option<String>,
    },
    /// md: `` `a` ``; re: `@<tt>`, `@<code>`; db: `literal`, `code`.
    Code(String),
    /// re: `@<sup>`; db: `superscript`.
    Superscript(Inlines),
    /// re: `@<sub>`; db: `subscript`.
    Subscript(Inlines),
    /// md: `~~a~~`; re: `@<del>`.
    Deleted(Inlines),
    /// re: `@<ins>`.
    Inserted(Inlines),
    /// re: `@<u>`.
    Underline(Inlines),
    /// A run in another language than what surrounds it (db `xml:lang`/`lang` on an inline
    /// element): readers pronounce and hyphenate it as that language.
    Lang {
        lang: String,
        content: Inlines,
    },
    /// A styled run: re `@<kw>`, `@<ami>`; db `phrase role=…`.
    Span {
        class: String,
        content: Inlines,
    },
    /// md: `[text](url)`; re: `@<href>`; db: `link`, `ulink`. `href` is as written.
    Link {
        href: String,
        content: Inlines,
    },
    /// A cross-reference whose text the resolver generates (re `@<list>`, `@<img>`, `@<chap>`;
    /// db `xref`). `target` is as written (re `ch02|id`); `content` is used when the source
    /// gave text. The resolver replaces it with a link.
    Ref {
        kind: RefKind,
        target: String,
        content: Option<Inlines>,
    },
    /// re: `@<endnote>{id}`.
    EndnoteRef(String),
    /// md: `![alt](src)` inside text; re: `@<icon>`; db: `inlinemediaobject`.
    Image(Image),
    /// md: `[^label]`; re: `@<fn>`; db: `footnote` (the body moves to `Document::footnotes`).
    FootnoteRef(String),
    /// re: `@<ruby>{漢字,かんじ}`.
    Ruby {
        base: String,
        text: String,
    },
    /// Emphasis dots (圏点). re: `@<bou>`.
    EmphasisDots(Inlines),
    /// Horizontal-in-vertical (縦中横). re: `@<tcy>`.
    TateChuYoko(String),
    /// Inline math: its TeX, and its MathML when it converts (one `math` element). re: `@<m>`;
    /// md: `$…$`, `$$…$$` (display MathML); db: `inlineequation` without MathML (its text).
    Math {
        tex: String,
        mathml: Option<Vec<crate::dom::Node>>,
    },
    /// An occurrence of an index term, invisible in the text (re: `@<idx>` writes the term
    /// beside it, `@<hidx>` does not; db: `indexterm`). Each becomes an anchor the book's index
    /// links to (see `xref::index`).
    IndexTerm {
        /// The term's levels, outermost first, joined by `<<>>` (re `親<<>>子`; db `primary`,
        /// `secondary`, `tertiary`).
        term: String,
        /// The anchor's id, unique in the book, given by the resolver when the book has an
        /// index.
        id: Option<String>,
        /// What the term says beyond its levels (db `see`, `seealso`, `sortas`, ranges,
        /// `significance`); `None` for most.
        #[serde(default)]
        details: Option<Box<IndexDetails>>,
    },
    /// md: two trailing spaces or `\`; re: `@<br>`.
    LineBreak,
    /// Where a page of the print edition begins, inside text (see [`BlockKind::PrintPage`]).
    PrintPage(PrintPage),
    /// Raw XHTML, already checked to be well-formed (md: inline HTML; re: `@<raw>`).
    Raw(Vec<crate::dom::Node>),
}

/// What a DocBook `indexterm` says beyond its levels.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
pub struct IndexDetails {
    /// What each level sorts as (db `sortas`), in step with the levels; `None` where it sorts
    /// as written.
    pub sort_as: Vec<Option<String>>,
    /// db `see`: the entry sends the reader to another term and marks no place.
    pub see: Option<String>,
    /// db `seealso`: related terms, listed after the entry's places.
    pub see_also: Vec<String>,
    /// db `significance="preferred"`: the main place of the term, shown bold.
    pub preferred: bool,
    /// db `class="startofrange"`: the id its `endofrange` names (`startref`).
    pub range_start: Option<String>,
    /// db `class="endofrange"`: the `startofrange` term it ends; marks where the range ends,
    /// not a place of its own.
    pub range_end: Option<String>,
}

impl InlineKind {
    /// The nested inline content, for the variants that have some. Every pass that walks
    /// inlines goes through this one list, so a new variant cannot be forgotten by one of them.
    pub fn children(&self) -> Option<&Inlines> {
        match self {
            InlineKind::Emphasis(c)
            | InlineKind::Strong(c)
            | InlineKind::Bold(c)
            | InlineKind::Italic(c)
            | InlineKind::Superscript(c)
            | InlineKind::Subscript(c)
            | InlineKind::Deleted(c)
            | InlineKind::Inserted(c)
            | InlineKind::Underline(c)
            | InlineKind::EmphasisDots(c)
            | InlineKind::Keyword { word: c, .. }
            | InlineKind::Span { content: c, .. }
            | InlineKind::Lang { content: c, .. }
            | InlineKind::Link { content: c, .. }
            | InlineKind::Ref {
                content: Some(c), ..
            } => Some(c),
            _ => None,
        }
    }

    pub fn children_mut(&mut self) -> Option<&mut Inlines> {
        match self {
            InlineKind::Emphasis(c)
            | InlineKind::Strong(c)
            | InlineKind::Bold(c)
            | InlineKind::Italic(c)
            | InlineKind::Superscript(c)
            | InlineKind::Subscript(c)
            | InlineKind::Deleted(c)
            | InlineKind::Inserted(c)
            | InlineKind::Underline(c)
            | InlineKind::EmphasisDots(c)
            | InlineKind::Keyword { word: c, .. }
            | InlineKind::Span { content: c, .. }
            | InlineKind::Lang { content: c, .. }
            | InlineKind::Link { content: c, .. }
            | InlineKind::Ref {
                content: Some(c), ..
            } => Some(c),
            _ => None,
        }
    }
}

impl Document {
    /// Gives back the room the readers' growing vectors and strings left unused. A vector grown
    /// by `push` keeps room for four or more items, so a table cell holding one text run took
    /// four inlines' room: a quarter of a freshly read Re:VIEW book's memory was such room.
    pub fn shrink_to_fit(&mut self) {
        shrink_blocks(&mut self.blocks);
        for note in self.footnotes.iter_mut().chain(self.endnotes.iter_mut()) {
            note.label.shrink_to_fit();
            shrink_blocks(&mut note.blocks);
        }
        self.footnotes.shrink_to_fit();
        self.endnotes.shrink_to_fit();
    }
}

fn shrink_blocks(blocks: &mut Vec<Block>) {
    blocks.shrink_to_fit();
    for b in blocks.iter_mut() {
        // Exhaustive on purpose: a new kind holding vectors must be compacted here too.
        match &mut b.kind {
            BlockKind::Heading(h) => shrink_inlines(&mut h.content),
            BlockKind::Para(c) => shrink_inlines(c),
            BlockKind::StyledPara { content, .. } => shrink_inlines(content),
            BlockKind::List(l) => {
                l.items.shrink_to_fit();
                l.items.iter_mut().for_each(shrink_blocks);
            }
            BlockKind::DefinitionList(items) => {
                items.shrink_to_fit();
                for item in items {
                    shrink_inlines(&mut item.term);
                    item.definitions.shrink_to_fit();
                    item.definitions.iter_mut().for_each(shrink_blocks);
                }
            }
            BlockKind::Code(code) => {
                code.text.shrink_to_fit();
                code.caption.iter_mut().for_each(shrink_inlines);
                code.markup.iter_mut().for_each(shrink_inlines);
            }
            BlockKind::Table(t) => {
                t.caption.iter_mut().for_each(shrink_inlines);
                for rows in [&mut t.head, &mut t.body] {
                    rows.shrink_to_fit();
                    for row in rows.iter_mut() {
                        row.cells.shrink_to_fit();
                        for c in row.cells.iter_mut() {
                            shrink_inlines(&mut c.content);
                            shrink_blocks(&mut c.blocks);
                        }
                    }
                }
            }
            BlockKind::Figure(f) => f.caption.iter_mut().for_each(shrink_inlines),
            BlockKind::Math(m) => m.caption.iter_mut().for_each(shrink_inlines),
            BlockKind::Quote {
                blocks,
                attribution: title,
            }
            | BlockKind::Sidebar { title, blocks, .. } => {
                title.iter_mut().for_each(shrink_inlines);
                shrink_blocks(blocks);
            }
            BlockKind::Admonition { title, blocks, .. } => {
                title.inlines_mut().into_iter().for_each(shrink_inlines);
                shrink_blocks(blocks);
            }
            BlockKind::Div { blocks, .. } | BlockKind::Wrapped { blocks, .. } => {
                shrink_blocks(blocks)
            }
            BlockKind::BibItem(item) => {
                shrink_inlines(&mut item.caption);
                shrink_blocks(&mut item.blocks);
            }
            BlockKind::Rule
            | BlockKind::PageBreak
            | BlockKind::PrintPage(_)
            | BlockKind::Anchor(_)
            | BlockKind::Endnotes
            | BlockKind::Index
            | BlockKind::Raw(_) => {}
        }
    }
}

fn shrink_inlines(inlines: &mut Inlines) {
    inlines.shrink_to_fit();
    for inline in inlines.iter_mut() {
        // Merged text runs grew by appending.
        if let InlineKind::Text(t) = &mut inline.kind {
            t.shrink_to_fit();
        }
        if let Some(children) = inline.kind.children_mut() {
            shrink_inlines(children);
        }
    }
}

/// Appends an inline, merging adjacent text runs, so writers and tests see one run per
/// stretch of text.
pub fn push_merged(out: &mut Inlines, inline: Inline) {
    if let (
        Some(Inline {
            kind: InlineKind::Text(prev),
            ..
        }),
        InlineKind::Text(next),
    ) = (out.last_mut(), &inline.kind)
    {
        prev.push_str(next);
        return;
    }
    out.push(inline);
}

/// Plain text of inline content (for titles in the nav, alt text, ids).
pub fn plain_text(inlines: &[Inline]) -> String {
    let mut out = String::new();
    push_plain(inlines, &mut out);
    out
}

fn push_plain(inlines: &[Inline], out: &mut String) {
    for inline in inlines {
        if let Some(children) = inline.kind.children() {
            push_plain(children, out);
            continue;
        }
        match &inline.kind {
            InlineKind::Text(t) | InlineKind::Code(t) | InlineKind::TateChuYoko(t) => {
                out.push_str(t)
            }
            InlineKind::Math { tex, .. } => out.push_str(tex),
            InlineKind::Ruby { base, .. } => out.push_str(base),
            InlineKind::Image(img) => out.push_str(&img.alt),
            InlineKind::LineBreak => out.push(' '),
            InlineKind::Raw(nodes) => {
                for n in nodes {
                    match n {
                        crate::dom::Node::Element(e) => out.push_str(&e.text_content()),
                        crate::dom::Node::Text(t) => out.push_str(t),
                        crate::dom::Node::Comment(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// What the DocBook reader finds in an `info`, for the book to merge under book.yml (here, below
// both the reader and the book).

/// Metadata from `info`/`bookinfo`/`articleinfo` (merged by the caller under book.yml/config).
#[derive(Debug, Clone, Default)]
pub struct DocBookMeta {
    pub title: Option<String>,
    pub subtitle: Option<String>,
    /// Authors, editors and other credits, in the order the `info` gives them.
    pub people: Vec<MetaPerson>,
    /// The `revhistory` of the `info`, as written (newest first, usually).
    pub revisions: Vec<Revision>,
    pub publisher: Option<String>,
    pub date: Option<String>,
    pub isbn: Option<String>,
    /// From copyright (year + holder) and legalnotice text.
    pub rights: Option<String>,
    pub releaseinfo: Option<String>,
    /// The `abstract`'s text, paragraphs apart (`dc:description`).
    pub description: Option<String>,
    /// Each `subjectterm` of the `subjectset`s, then each `keyword` of the `keywordset`s.
    pub subjects: Vec<String>,
    /// `lang`/`xml:lang` of the root element.
    pub language: Option<String>,
}

/// A person or organization the `info` credits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaPerson {
    pub name: String,
    /// MARC relator code: `aut` (author, corpauthor), `edt` (editor), or an `othercredit`'s.
    pub role: String,
    /// `jobtitle`, `orgdiv`, `orgname` of each `affiliation`, as DocBook XSL's title page
    /// lists them.
    pub affiliation: Option<String>,
    pub email: Option<String>,
}

/// One `revision` of a `revhistory`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Revision {
    pub number: Option<String>,
    pub date: Option<String>,
    /// `revremark`, or the text of `revdescription`.
    pub remark: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_keeps_the_document_and_leaves_no_spare_room() {
        let text = "= Title\n\nA @<b>{bold} word@<fn>{n}.\n\n * one\n * two @<i>{x}\n\n\
                    //table[t][Table]{\nA\tB\n----\na\tb\n//}\n\n//footnote[n][Note @<b>{x}]\n";
        let opts = crate::reader::review::ReviewOptions::default();
        let (mut doc, found) =
            crate::reader::review::read(text, std::path::Path::new("a.re"), &opts);
        assert!(found.is_empty(), "{found:?}");
        let before = doc.clone();
        doc.shrink_to_fit();
        assert_eq!(doc, before);
        assert_eq!(doc.blocks.capacity(), doc.blocks.len());
        let mut inline_lists = 0;
        for b in &doc.blocks {
            match &b.kind {
                BlockKind::Para(c) => {
                    inline_lists += 1;
                    assert_eq!(c.capacity(), c.len());
                }
                BlockKind::Table(t) => {
                    for cell in t.head.iter().chain(&t.body).flat_map(|r| &r.cells) {
                        inline_lists += 1;
                        assert_eq!(cell.content.capacity(), cell.content.len());
                    }
                }
                BlockKind::List(l) => {
                    for item in &l.items {
                        assert_eq!(item.capacity(), item.len());
                    }
                }
                _ => {}
            }
        }
        assert!(
            inline_lists >= 5,
            "the fixture has a paragraph and four cells"
        );
        let note = &doc.footnotes[0].blocks;
        assert_eq!(note.capacity(), note.len());
    }
}
