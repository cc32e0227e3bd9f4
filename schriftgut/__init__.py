"""Work product: DOCX and PDF on the Kanzlei's letterhead from templates filled with an Akte's data."""
