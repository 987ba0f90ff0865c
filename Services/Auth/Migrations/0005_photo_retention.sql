-- How many days a meal photo is kept (issue 20, MacroLog's optional photo clean-up): null keeps photos (the default),
-- else 1 to 3650. The meals service learns it from user.profile_updated and removes older photos itself.
ALTER TABLE profiles ADD COLUMN delete_photos_after_days integer
    CHECK (delete_photos_after_days IS NULL OR delete_photos_after_days BETWEEN 1 AND 3650);
