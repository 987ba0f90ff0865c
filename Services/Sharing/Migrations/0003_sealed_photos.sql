-- Photo copies sealed at rest (issue 33). meal_photos.bytes holds the copy sealed with AES-256-GCM under the key named
-- by key_id (SHARING_PHOTO_ENCRYPTION_KEY, bound to the meal's id); NULL marks a copy made before sealing, still plain,
-- which the photo upkeep job seals, as it seals again every copy whose key is no longer the current one.
-- The digest stays the SHA-256 of the plain photo: the ETag of GET /shared/{token}/photo and the card's key.
ALTER TABLE meal_photos ADD COLUMN key_id text;
CREATE INDEX meal_photos_plain ON meal_photos (meal_id) WHERE key_id IS NULL;
