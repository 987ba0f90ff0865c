-- Photos stored in parts (issue 21). The service writes a new photo as parts of at most 1 MiB, each its own
-- statement, so storing an upload holds the photo once in memory plus one part; a single bind message held it three
-- times. Photos stored before keep their bytes inline in meal_photos.bytes; a photo in parts has bytes NULL. Parts go
-- with their photo row. Photos are already compressed (JPEG, PNG, WebP, HEIC), so PostgreSQL does not try again.
CREATE TABLE meal_photo_parts (
    photo_id uuid NOT NULL REFERENCES meal_photos (photo_id) ON DELETE CASCADE,
    part     integer NOT NULL,
    bytes    bytea NOT NULL,
    PRIMARY KEY (photo_id, part)
);
ALTER TABLE meal_photo_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;
ALTER TABLE meal_photos ALTER COLUMN bytes DROP NOT NULL;
