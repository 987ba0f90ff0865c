/// Whether stated energy and the energy of the macronutrients agree, the check a model's photo answer and a
/// user's label both pass: by Atwater factors (4 kcal/g protein and carbs, 9 fat, 7 alcohol), within `ratio` plus
/// `slack` either way. Rounding and fibre (counted at 4 kcal/g) stay inside it; per-100 g numbers mixed with
/// per-portion ones, or kJ typed as kcal, do not.
public enum EnergyCheck {
    public static let ratio = 1.5
    public static let slack = 50.0

    /// The energy of the macronutrients in kcal.
    public static func macroEnergy(protein: Double, carbs: Double, fat: Double, alcohol: Double = 0) -> Double {
        protein * 4 + carbs * 4 + fat * 9 + alcohol * 7
    }

    /// Whether `calories` and the macros' energy agree.
    public static func agrees(calories: Double, protein: Double, carbs: Double, fat: Double, alcohol: Double = 0) -> Bool {
        let macros = macroEnergy(protein: protein, carbs: carbs, fat: fat, alcohol: alcohol)
        return macros <= calories * ratio + slack && calories <= macros * ratio + slack
    }
}
