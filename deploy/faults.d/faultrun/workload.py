"""The write load and what it establishes: the ledger of every write, the users, the ground truth of what the
acknowledged writes say (meals, weights, share links, the foods service's products), and the writer threads."""
import datetime as dt
import random
import threading
import time
import uuid

from .config import now
from .http import call
from .output import out

# ----------------------------------------------------------------------------------------------- ledger

class Ledger:
    """Every write attempted, with its outcome."""

    def __init__(self):
        self.lock = threading.Lock()
        self.writes = []

    def add(self, op, user, answer, thread, target=None, contents=None):
        entry = {
            "op": op, "user": user.index, "thread": thread, "t0": round(answer.t0, 3), "t1": round(answer.t1, 3),
            "status": answer.status, "code": answer.code, "error": answer.error, "outcome": answer.outcome,
            "requestId": answer.rid, "target": target, "contents": contents,
        }
        with self.lock:
            self.writes.append(entry)
        return entry

    def between(self, start, end):
        with self.lock:
            return [w for w in self.writes if start <= w["t0"] <= end]


LEDGER = Ledger()


# ----------------------------------------------------------------------------------------------- users

class User:
    def __init__(self, index, run_id):
        self.index = index
        self.email = f"faults-{run_id}-{index}@example.com"
        self.password = f"fault-run-{run_id}-{uuid.uuid4().hex[:12]}"
        self.lock = threading.Lock()
        self.access = None
        self.refresh = None
        self.issued = 0.0
        self.user_id = None
        self.session_id = None

    def _take(self, body):
        self.access = body["accessToken"]
        self.refresh = body["refreshToken"]
        self.session_id = body.get("sessionId")
        self.user_id = body["user"]["id"].lower()
        self.issued = now()

    def register(self):
        for _ in range(20):
            a = call("POST", "/api/auth/register", {"email": self.email, "password": self.password, "displayName": f"Fault {self.index}"})
            if a.status == 201:
                self._take(a.body)
                return
            time.sleep(0.5)
        raise RuntimeError(f"could not register {self.email}: {a.describe()}")

    def token(self):
        """The access token, refreshed after 10 minutes (tokens live 15), retrying while auth is down."""
        with self.lock:
            if now() - self.issued > 600:
                deadline = now() + 60
                while now() < deadline:
                    a = call("POST", "/api/auth/refresh", {"refreshToken": self.refresh})
                    if a.status == 200:
                        self._take(a.body)
                        break
                    if a.status in (401, 403):
                        a = call("POST", "/api/auth/login", {"email": self.email, "password": self.password})
                        if a.status == 200:
                            self._take(a.body)
                            break
                    time.sleep(0.5)
            return self.access

    def identity_headers(self):
        """What the gateway would pass to a service, for requests straight to it."""
        return {"X-User-Id": self.user_id, "X-Session-Id": self.session_id or str(uuid.uuid4())}


# ----------------------------------------------------------------------------------------------- ground truth

class MealState:
    """What the acknowledged writes say a meal is."""

    def __init__(self, user, body, origin):
        self.user = user
        self.id = body["id"].lower()
        self.origin = origin
        self.created = now()
        self.ambiguous = False          # a write after the last acknowledged state may have happened; read back first
        self.ever_ambiguous = False     # a newer version than expected is then possible
        self.acked_versions = []        # the version each acknowledged write produced
        self.take(body)

    def take(self, body):
        self.version = body["version"]
        self.consumed = body["isConsumed"]
        self.calories = float(body["totals"]["calories"])
        self.title = body["title"]
        self.local_date = body["localDate"]


class Truth:
    def __init__(self):
        self.lock = threading.Lock()
        self.meals = {}             # id -> MealState
        self.weights = {}           # (user index, date) -> {"acked": kg or None, "maybe": set(kg), "writes": n}
        self.shares = []            # {"user", "token", "mealId"}
        self.ambiguous_creates = {}  # user index -> count
        self.products = {}          # barcode -> ProductState
        self.ambiguous_products = 0  # product creations without a clear answer

    def add_meal(self, meal):
        with self.lock:
            self.meals[meal.id] = meal

    def add_product(self, product):
        with self.lock:
            self.products[product.barcode] = product

    def ambiguous_product(self):
        with self.lock:
            self.ambiguous_products += 1

    def stored_barcode(self, rng):
        """The barcode of a product some acknowledged creation stored, or None before the first."""
        with self.lock:
            return rng.choice(list(self.products)) if self.products else None

    def weight(self, user, date, kg, outcome):
        with self.lock:
            key = (user.index, date)
            entry = self.weights.setdefault(key, {"acked": None, "maybe": set(), "writes": 0})
            if outcome == "ack":
                entry["acked"] = kg
                entry["maybe"] = set()
                entry["writes"] += 1
            elif outcome == "ambiguous":
                entry["maybe"].add(kg)

    def ambiguous_create(self, user):
        with self.lock:
            self.ambiguous_creates[user.index] = self.ambiguous_creates.get(user.index, 0) + 1


TRUTH = Truth()

FOODS = [
    ("Oat porridge", 12, 54, 7), ("Chicken and rice", 38, 62, 11), ("Salmon and greens", 34, 12, 22),
    ("Lentil soup", 18, 40, 6), ("Greek yogurt", 17, 9, 5), ("Pasta bolognese", 29, 78, 17),
    ("Apple", 0.5, 25, 0.3), ("Tofu stir fry", 21, 30, 14), ("Egg sandwich", 19, 33, 15), ("Trail mix", 9, 24, 21),
]


def meal_items(rng):
    items = []
    for _ in range(rng.randint(1, 3)):
        name, p, c, f = rng.choice(FOODS)
        scale = rng.choice([0.5, 1, 1, 1.5, 2])
        p, c, f = round(p * scale, 1), round(c * scale, 1), round(f * scale, 1)
        grams = round(max(p + c + f, 10) * 2.5)
        items.append({"name": name, "grams": grams, "calories": round(4 * p + 4 * c + 9 * f), "protein": p, "carbs": c, "fat": f})
    return items


def iso(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------------------------- products

class ProductState:
    """What an acknowledged creation says a product of the foods service is."""

    def __init__(self, user, barcode, body):
        self.user = user
        self.barcode = barcode      # as sent (EAN-13); the service answers it as GTIN-14
        self.id = body["id"].lower()
        self.name = body["name"]
        self.created = now()


def check_digit(digits):
    """The GS1 check digit of a code's other digits (weights 3 and 1 from the right)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


class Barcodes:
    """Fresh EAN-13 codes for the products a run creates: 2 (GS1's in-store range, so never a real product that Open
    Food Facts would know), five digits drawn for the run, a six-digit counter, the check digit. A code an earlier run
    drew too is refused (409 duplicate_barcode), which the run counts as not done."""

    def __init__(self):
        self.lock = threading.Lock()
        self.prefix = f"2{random.SystemRandom().randrange(10 ** 5):05d}"
        self.count = 0

    def next(self):
        with self.lock:
            self.count += 1
            digits = f"{self.prefix}{self.count:06d}"
        return digits + check_digit(digits)


BARCODES = Barcodes()

# Packaged products per 100 g: name, brand, protein, carbs, fat (calories follow from them).
PRODUCTS = [
    ("Oat biscuits", "Fault Bakery", 7, 64, 18), ("Greek yogurt", "Fault Dairy", 9, 4, 10),
    ("Peanut butter", "Fault Mills", 25, 16, 50), ("Granola", "Fault Mills", 10, 60, 15),
    ("Tomato soup", "Fault Kitchen", 1, 8, 2), ("Protein bar", "Fault Sports", 30, 40, 12),
    ("Rye crackers", "Fault Bakery", 10, 66, 3), ("Hummus", "Fault Kitchen", 8, 14, 20),
]


def product_draft(rng, barcode):
    """A ProductDraft the foods service accepts: per 100 g, calories exactly 4 protein + 4 carbs + 9 fat."""
    name, brand, p, c, f = rng.choice(PRODUCTS)
    return {"barcode": barcode, "name": f"{name} {barcode[-6:]}", "brand": brand,
            "servingSize": {"amount": rng.choice([25, 30, 40, 50]), "unit": "g"},
            "per100g": {"calories": 4 * p + 4 * c + 9 * f, "protein": p, "carbs": c, "fat": f}}


# ----------------------------------------------------------------------------------------------- writers

class Writer(threading.Thread):
    """One writer: its own meals (only this thread touches them, so acknowledged states are in order), its own
    weight dates and the products it creates, at one write every `interval` seconds."""

    def __init__(self, name, user, slot, slots, interval, stop, seed):
        super().__init__(name=name, daemon=True)
        self.user = user
        self.slot = slot
        self.slots = slots
        self.interval = interval
        self.stop_event = stop
        self.rng = random.Random(seed)
        self.meals = []
        self.products = []
        self.counts = {}
        self.last_share = None

    def record(self, op, answer, target=None, contents=None):
        self.counts[op] = self.counts.get(op, 0) + 1
        return LEDGER.add(op, self.user, answer, self.name, target, contents)

    def run(self):
        next_at = now() + self.rng.random() * self.interval
        while not self.stop_event.is_set():
            delay = next_at - now()
            if delay > 0:
                if self.stop_event.wait(delay):
                    break
            next_at = max(next_at + self.interval, now())
            try:
                self.one_write()
            except Exception as error:  # noqa: BLE001 - a harness bug must not silently stop the load
                out(f"    writer {self.name}: {type(error).__name__}: {error}")
                time.sleep(0.5)

    def one_write(self):
        r = self.rng.random()
        if len(self.meals) < 3 or r < 0.30:
            self.create(consumed=self.rng.random() < 0.85)
        elif r < 0.46:
            self.log_weight()
        elif r < 0.60:
            self.edit(self.rng.choice(self.meals))
        elif r < 0.78:
            self.toggle(self.rng.choice(self.meals))
        elif r < 0.88:
            self.create_product()
        else:
            ready = [m for m in self.meals if now() - m.created > 5]
            if ready:
                self.share(self.rng.choice(ready))
            else:
                self.create(consumed=True)

    def create(self, consumed=True):
        eaten = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=self.rng.randint(600, 6 * 86400))
        body = {"title": f"{self.rng.choice(FOODS)[0]} #{self.rng.randint(1, 9999)}",
                "mealType": self.rng.choice(["breakfast", "lunch", "dinner", "snack"]),
                "eatenAt": iso(eaten), "items": meal_items(self.rng), "consumed": consumed}
        a = call("POST", "/api/meals", body, self.user.token())
        if a.ok:
            meal = MealState(self.user, a.body, "manual")
            meal.acked_versions.append(meal.version)
            self.meals.append(meal)
            TRUTH.add_meal(meal)
            self.record("meal.create", a, meal.id, {"version": meal.version, "consumed": meal.consumed, "calories": meal.calories,
                                                    "title": meal.title, "localDate": meal.local_date})
        else:
            if a.outcome == "ambiguous":
                TRUTH.ambiguous_create(self.user)
            self.record("meal.create", a, None, {"title": body["title"], "consumed": consumed})

    def resync(self, meal):
        """Reads back a meal whose last write had no clear answer; False while it cannot be read."""
        a = call("GET", f"/api/meals/{meal.id}", token=self.user.token())
        if a.status == 200:
            meal.take(a.body)
            meal.ambiguous = False
            return True
        return False

    def after(self, meal, op, answer):
        if answer.ok:
            meal.take(answer.body)
            meal.acked_versions.append(meal.version)
        elif answer.outcome == "ambiguous":
            meal.ambiguous = meal.ever_ambiguous = True
        self.record(op, answer, meal.id, {"version": meal.version, "consumed": meal.consumed, "calories": meal.calories,
                                          "title": meal.title} if answer.ok else None)

    def edit(self, meal):
        if meal.ambiguous and not self.resync(meal):
            return
        body = {"title": f"{meal.title.split(' (')[0]} (edit {self.rng.randint(1, 999)})", "items": meal_items(self.rng)}
        self.after(meal, "meal.edit", call("PUT", f"/api/meals/{meal.id}", body, self.user.token()))

    def toggle(self, meal):
        if meal.ambiguous and not self.resync(meal):
            return
        if meal.consumed:
            self.after(meal, "meal.unconsume", call("DELETE", f"/api/meals/{meal.id}/consume", token=self.user.token()))
        else:
            self.after(meal, "meal.consume", call("POST", f"/api/meals/{meal.id}/consume", {}, self.user.token()))

    def log_weight(self):
        # Dates 1-30 days ago; this writer owns the dates whose offset falls in its slot, so no two writers race
        # on one user's day.
        offsets = [d for d in range(1, 31) if d % self.slots == self.slot]
        day = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=self.rng.choice(offsets))).date().isoformat()
        kg = round(self.rng.uniform(60, 95), 1)
        a = call("POST", "/api/metrics/weight", {"date": day, "weight": kg, "unit": "kg"}, self.user.token())
        TRUTH.weight(self.user, day, kg, a.outcome)
        self.record("weight.log", a, day, {"weightKg": kg})

    def share(self, meal):
        a = call("POST", f"/api/share/meal/{meal.id}", {}, self.user.token())
        if a.ok:
            with TRUTH.lock:
                TRUTH.shares.append({"user": self.user.index, "token": a.body["token"], "mealId": meal.id})
            self.counts["share.ok"] = self.counts.get("share.ok", 0) + 1
            self.last_share = meal.id
        self.record("share.create", a, meal.id, {"token": a.body["token"]} if a.ok else None)

    def create_product(self):
        """A new product in the foods service, under a barcode no one used."""
        barcode = BARCODES.next()
        body = product_draft(self.rng, barcode)
        a = call("POST", "/api/foods/products", body, self.user.token())
        if a.ok:
            product = ProductState(self.user, barcode, a.body)
            self.products.append(product)
            TRUTH.add_product(product)
            self.record("product.create", a, product.id, {"barcode": barcode, "name": product.name})
        else:
            if a.outcome == "ambiguous":
                TRUTH.ambiguous_product()
            self.record("product.create", a, None, {"barcode": barcode, "name": body["name"]})
