-- Which consumed meals name which products (from `meal.consumed`, `meal.analyzed`, `meal.deleted`), so that search
-- ranks products by how often they were logged. One row per product and meal: editing a meal replaces its rows,
-- unconsuming or deleting it removes them, and `user.deleted` removes the user's.
CREATE TABLE product_uses (
    product_id  uuid NOT NULL,
    meal_id     uuid NOT NULL,
    user_id     uuid NOT NULL,
    PRIMARY KEY (product_id, meal_id)
);
CREATE INDEX product_uses_meal ON product_uses (meal_id);
CREATE INDEX product_uses_user ON product_uses (user_id);
