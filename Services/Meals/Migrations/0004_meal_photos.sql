-- Photos on any meal (issue 20). Each stored photo has its own id, which names it in signed photo URLs (a replaced
-- photo gets a new id, so a cached URL never shows the old one), and the time it was stored, which the
-- deletePhotosAfterDays clean-up reads. meals.photo_id names the meal's current photo (has_photo stays its shadow).
ALTER TABLE meal_photos
    ADD COLUMN photo_id uuid NOT NULL DEFAULT gen_random_uuid(),
    ADD COLUMN stored_at timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX meal_photos_by_photo_id ON meal_photos (photo_id);
CREATE INDEX meal_photos_by_age ON meal_photos (user_id, stored_at);
ALTER TABLE meals ADD COLUMN photo_id uuid;
UPDATE meals SET photo_id = meal_photos.photo_id FROM meal_photos WHERE meal_photos.meal_id = meals.id;
