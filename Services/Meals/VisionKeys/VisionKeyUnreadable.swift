/// A stored vision key that cannot be opened: the encryption key that sealed it was dropped from the ring, or the row
/// was altered. The user is asked to set their key again.
struct VisionKeyUnreadable: Error {}
