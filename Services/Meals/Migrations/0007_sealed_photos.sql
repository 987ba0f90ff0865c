-- Photos sealed at rest, and their thumbnails (issue 33). Every part of a photo is sealed with AES-256-GCM under the
-- key named by meal_photos.key_id; NULL marks a photo stored before sealing (plain parts, or plain inline bytes), which
-- the photo upkeep job seals, as it seals again every photo whose key is no longer the current one.
-- meal_photos.thumbnail says what became of the photo's thumbnail: 'ready' (a row in meal_photo_thumbnails),
-- 'unavailable' (the image library could not read the photo) or NULL (not tried yet: the upkeep job makes it).
ALTER TABLE meal_photos
    ADD COLUMN key_id text,
    ADD COLUMN thumbnail text CHECK (thumbnail IN ('ready', 'unavailable'));
CREATE INDEX meal_photos_upkeep ON meal_photos (stored_at) WHERE key_id IS NULL OR thumbnail IS NULL;
CREATE TABLE meal_photo_thumbnails (
    photo_id   uuid PRIMARY KEY REFERENCES meal_photos (photo_id) ON DELETE CASCADE,
    media_type text NOT NULL,
    key_id     text NOT NULL,
    bytes      bytea NOT NULL
);
ALTER TABLE meal_photo_thumbnails ALTER COLUMN bytes SET STORAGE EXTERNAL;
