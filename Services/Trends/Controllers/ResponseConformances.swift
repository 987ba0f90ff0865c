import Hummingbird

// The reports are plain models; answering them as JSON is the controllers' concern. The dashboard reports served
// ready (`ReadyReports`) are encoded there, with the context's encoder.
extension DayHistory: ResponseEncodable {}
extension ExpenditureEstimate: ResponseEncodable {}
