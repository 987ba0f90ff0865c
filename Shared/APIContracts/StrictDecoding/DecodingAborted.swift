/// Decoding cannot go on (a type's own check failed where no placeholder can stand in); what was recorded is reported.
struct DecodingAborted: Error {}
