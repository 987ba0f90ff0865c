import Hummingbird

// The reports are plain models; answering them as JSON is the controllers' concern.
extension TrendsReport: ResponseEncodable {}
extension UserStatsReport: ResponseEncodable {}
extension DaysReport: ResponseEncodable {}
extension DayHistory: ResponseEncodable {}
extension AchievementsReport: ResponseEncodable {}
extension ExpenditureEstimate: ResponseEncodable {}
