//! XHTML: the writer from the document model (the tree it writes is [`crate::dom`]).
pub mod aria;
pub mod write;
