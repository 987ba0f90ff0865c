-- The foods service's packaged products as `food.product_changed` last said (the highest version kept), so that a
-- meal item can name a product by id without a call to foods. `author_id` is the product's author (nil for Open
-- Food Facts products and once the author deleted their account), who may log a product held back from others.
CREATE TABLE products (
    product_id  uuid PRIMARY KEY,
    version     integer NOT NULL,
    author_id   uuid,
    product     jsonb NOT NULL
);
