//! TEMP stub
use super::record::{FileError, Parsed};
pub struct ReceiptOptions {
    pub month_first: bool,
}
pub fn parse_receipts(_b: &[u8], _o: &ReceiptOptions) -> Result<Vec<Parsed>, FileError> {
    Ok(vec![])
}
