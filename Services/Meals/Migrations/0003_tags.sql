-- Meal tags (NutritionAI's "meal tags"): up to 10 lower-case tags per meal and custom meal, normalised by the service.
-- The GIN index serves `GET /api/meals?tag=` (`tags @> ARRAY[tag]`).

ALTER TABLE meals ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE custom_meals ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX meals_by_tag ON meals USING gin (tags);
