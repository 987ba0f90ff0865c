import ServiceDefaults

/// One day of the user's log as the estimator sees it.
///
/// One entry per date is expected; when a date appears twice the estimator adds the intakes and averages the
/// weigh-ins. An intake of zero or less counts as "nothing logged" (a day whose meals were all deleted looks the
/// same as a fast, and fasting days are much rarer), and a weight that is not a positive finite number is ignored.
struct ExpenditureDay: Sendable, Equatable {
    var date: CalendarDate
    /// Calories of the meals the user consumed that day; nil when nothing was logged.
    var intakeCalories: Double?
    /// The weigh-in of that day in kg, nil without one.
    var weightKg: Double?
}
