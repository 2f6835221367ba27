//! XHTML: a small owned tree over quick-xml (`dom`) and the writer from the document model.
pub mod dom;
pub mod write;
