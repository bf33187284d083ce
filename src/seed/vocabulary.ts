// Words the demo data is made of: cities, cuisines, dishes, review phrases, groceries. Plain
// data, no logic; kept ASCII where it becomes a username or a web address.

export type City = {
  name: string;
  state: string;
  country: string;
  /** Centre of town; restaurants are scattered a few kilometres around it. */
  latitude: number;
  longitude: number;
  districts: string[];
  streets: string[];
  /** International dialling prefix for made-up phone numbers. */
  phonePrefix: string;
  /** Cuisines more common in this city than elsewhere. */
  localCuisines: string[];
  /** Payment methods specific to the place (added to the usual ones). */
  localPayments: string[];
};

export const CITIES: City[] = [
  {
    name: "Lisbon",
    state: "Lisboa",
    country: "Portugal",
    latitude: 38.7223,
    longitude: -9.1393,
    districts: ["Alfama", "Baixa", "Chiado", "Belém", "Príncipe Real", "Graça"],
    streets: [
      "Rua Augusta",
      "Rua da Prata",
      "Rua do Alecrim",
      "Calçada do Combro",
      "Rua das Flores",
      "Avenida da Liberdade",
    ],
    phonePrefix: "+351 21",
    localCuisines: ["portuguese", "seafood"],
    localPayments: ["MB Way"],
  },
  {
    name: "Berlin",
    state: "Berlin",
    country: "Germany",
    latitude: 52.52,
    longitude: 13.405,
    districts: ["Mitte", "Kreuzberg", "Prenzlauer Berg", "Neukölln", "Friedrichshain", "Schöneberg"],
    streets: ["Oranienstraße", "Torstraße", "Kastanienallee", "Bergmannstraße", "Sonnenallee", "Kollwitzstraße"],
    phonePrefix: "+49 30",
    localCuisines: ["german", "turkish"],
    localPayments: ["EC card"],
  },
  {
    name: "Mumbai",
    state: "Maharashtra",
    country: "India",
    latitude: 19.076,
    longitude: 72.8777,
    districts: ["Bandra", "Colaba", "Andheri", "Juhu", "Powai", "Lower Parel"],
    streets: ["Hill Road", "Linking Road", "Colaba Causeway", "Carter Road", "SV Road", "Marine Drive"],
    phonePrefix: "+91 22",
    localCuisines: ["indian", "street food"],
    localPayments: ["UPI"],
  },
  {
    name: "Mexico City",
    state: "Ciudad de México",
    country: "Mexico",
    latitude: 19.4326,
    longitude: -99.1332,
    districts: ["Roma Norte", "Condesa", "Coyoacán", "Polanco", "Juárez", "Centro Histórico"],
    streets: [
      "Calle Orizaba",
      "Avenida Álvaro Obregón",
      "Calle Colima",
      "Avenida Tamaulipas",
      "Calle Madero",
      "Calle Durango",
    ],
    phonePrefix: "+52 55",
    localCuisines: ["mexican", "street food"],
    localPayments: [],
  },
  {
    name: "Toronto",
    state: "Ontario",
    country: "Canada",
    latitude: 43.6532,
    longitude: -79.3832,
    districts: ["Kensington Market", "Yorkville", "Leslieville", "The Annex", "Little Italy", "Chinatown"],
    streets: [
      "Queen Street West",
      "Spadina Avenue",
      "College Street",
      "Dundas Street",
      "Ossington Avenue",
      "Bloor Street",
    ],
    phonePrefix: "+1 416",
    localCuisines: ["american", "chinese"],
    localPayments: ["Interac"],
  },
  {
    name: "Tokyo",
    state: "Tokyo",
    country: "Japan",
    latitude: 35.6762,
    longitude: 139.6503,
    districts: ["Shibuya", "Shinjuku", "Asakusa", "Ginza", "Nakameguro", "Shimokitazawa"],
    streets: ["Meiji-dori", "Omotesando", "Kappabashi-dori", "Chuo-dori", "Yamate-dori", "Sumida-dori"],
    phonePrefix: "+81 3",
    localCuisines: ["japanese", "korean"],
    localPayments: ["IC card"],
  },
  {
    name: "Nairobi",
    state: "Nairobi County",
    country: "Kenya",
    latitude: -1.2921,
    longitude: 36.8219,
    districts: ["Westlands", "Kilimani", "Karen", "Gigiri", "Lavington", "Parklands"],
    streets: ["Waiyaki Way", "Ngong Road", "Argwings Kodhek Road", "Limuru Road", "Kenyatta Avenue", "Muthithi Road"],
    phonePrefix: "+254 20",
    localCuisines: ["ethiopian", "indian"],
    localPayments: ["M-Pesa"],
  },
  {
    name: "Melbourne",
    state: "Victoria",
    country: "Australia",
    latitude: -37.8136,
    longitude: 144.9631,
    districts: ["Fitzroy", "Carlton", "St Kilda", "Richmond", "Collingwood", "Brunswick"],
    streets: ["Brunswick Street", "Lygon Street", "Acland Street", "Swan Street", "Smith Street", "Sydney Road"],
    phonePrefix: "+61 3",
    localCuisines: ["vietnamese", "greek"],
    localPayments: [],
  },
];

export const LANDMARKS = [
  "opposite the central market",
  "next to the metro station",
  "behind the old church",
  "by the river",
  "on the corner of the square",
  "across from the public library",
  "beside the cinema",
  "near the park gate",
];

/** Cuisines with a word used in restaurant names and a few dishes (order recipes, reviews). */
export const CUISINES: Record<string, { nameWords: string[]; dishes: string[] }> = {
  italian: {
    nameWords: ["Trattoria", "Osteria", "Pizzeria"],
    dishes: ["Margherita pizza", "Cacio e pepe", "Lasagne", "Tiramisu", "Risotto ai funghi"],
  },
  japanese: {
    nameWords: ["Izakaya", "Sushi", "Ramen"],
    dishes: ["Tonkotsu ramen", "Salmon nigiri", "Katsu curry", "Gyoza", "Matcha cheesecake"],
  },
  indian: {
    nameWords: ["Tandoor", "Dhaba", "Masala"],
    dishes: ["Butter chicken", "Chana masala", "Masala dosa", "Lamb biryani", "Garlic naan"],
  },
  mexican: {
    nameWords: ["Taquería", "Cantina", "Cocina"],
    dishes: ["Tacos al pastor", "Mole poblano", "Chilaquiles", "Guacamole", "Churros"],
  },
  portuguese: {
    nameWords: ["Tasca", "Casa", "Taberna"],
    dishes: ["Bacalhau à Brás", "Caldo verde", "Bifana", "Pastel de nata", "Arroz de pato"],
  },
  thai: {
    nameWords: ["Baan", "Thai Kitchen", "Krua"],
    dishes: ["Pad thai", "Green curry", "Som tam", "Tom yum", "Mango sticky rice"],
  },
  lebanese: {
    nameWords: ["Beit", "Mezze", "Cedar"],
    dishes: ["Hummus", "Falafel wrap", "Fattoush", "Shawarma plate", "Baklava"],
  },
  ethiopian: {
    nameWords: ["Habesha", "Injera House", "Addis"],
    dishes: ["Doro wat", "Misir wat", "Tibs", "Shiro", "Kitfo"],
  },
  korean: {
    nameWords: ["Jib", "Pocha", "Seoul"],
    dishes: ["Bibimbap", "Kimchi jjigae", "Korean fried chicken", "Tteokbokki", "Bulgogi"],
  },
  vietnamese: {
    nameWords: ["Pho", "Banh Mi", "Quán"],
    dishes: ["Pho bo", "Banh mi", "Bun cha", "Summer rolls", "Ca phe sua da"],
  },
  french: {
    nameWords: ["Bistrot", "Brasserie", "Café"],
    dishes: ["Steak frites", "Coq au vin", "Croque monsieur", "Soupe à l'oignon", "Crème brûlée"],
  },
  greek: {
    nameWords: ["Taverna", "Ouzeri", "Psistaria"],
    dishes: ["Souvlaki", "Moussaka", "Greek salad", "Spanakopita", "Loukoumades"],
  },
  turkish: {
    nameWords: ["Lokanta", "Kebap", "Meyhane"],
    dishes: ["Adana kebab", "Lahmacun", "Pide", "Mercimek soup", "Künefe"],
  },
  german: {
    nameWords: ["Gasthaus", "Wirtshaus", "Stube"],
    dishes: ["Schnitzel", "Käsespätzle", "Currywurst", "Sauerbraten", "Apfelstrudel"],
  },
  chinese: {
    nameWords: ["Dumpling House", "Noodle Bar", "Wok"],
    dishes: ["Xiao long bao", "Dan dan noodles", "Mapo tofu", "Char siu bao", "Kung pao chicken"],
  },
  american: {
    nameWords: ["Diner", "Grill", "Smokehouse"],
    dishes: ["Cheeseburger", "Buttermilk pancakes", "Pulled pork sandwich", "Mac and cheese", "Apple pie"],
  },
  seafood: {
    nameWords: ["Marisqueira", "Oyster Bar", "Fish House"],
    dishes: ["Grilled sardines", "Octopus salad", "Fish and chips", "Seafood rice", "Clams in garlic"],
  },
  "street food": {
    nameWords: ["Corner", "Stall", "Express"],
    dishes: ["Vada pav", "Pani puri", "Elote", "Quesadilla", "Loaded fries"],
  },
};

export const NAME_WORDS = [
  "Olive",
  "Lantern",
  "Fig",
  "Copper",
  "Saffron",
  "Juniper",
  "Harbour",
  "Garden",
  "Ember",
  "Basil",
  "Orchard",
  "Pepper",
  "Nomad",
  "Willow",
  "Marigold",
  "Cardamom",
  "Anchor",
  "Lotus",
  "Tamarind",
  "Sesame",
  "Clove",
  "Maple",
];

export const TYPES = [
  "restaurant",
  "cafe",
  "bistro",
  "takeaway",
  "bar",
  "bakery",
  "food truck",
  "fine dining",
  "canteen",
];

export const CATEGORIES = [
  "vegan-friendly",
  "vegetarian",
  "family",
  "romantic",
  "business lunch",
  "late night",
  "brunch",
  "outdoor seating",
  "halal",
  "gluten-free options",
  "pet friendly",
  "live music",
  "kids menu",
];

export const PAYMENT_METHODS = ["cash", "card", "contactless", "mobile wallet", "meal vouchers"];

export const PRICE_RANGES: readonly (readonly [string, number])[] = [
  ["$", 3],
  ["$$", 5],
  ["$$$", 2],
  ["$$$$", 1],
];

/** Opening-hours patterns ("HH:MM" 24-hour); a close before the open runs past midnight. */
export const OPENING_PATTERNS: { open: string; close: string }[][] = [
  [
    { open: "11:30", close: "15:00" },
    { open: "18:30", close: "23:00" },
  ],
  [{ open: "08:00", close: "16:00" }],
  [{ open: "12:00", close: "00:30" }],
  [{ open: "18:00", close: "02:00" }],
  [{ open: "07:00", close: "22:00" }],
  [
    { open: "12:00", close: "14:30" },
    { open: "19:00", close: "01:30" },
  ],
  [{ open: "10:00", close: "21:00" }],
  [{ open: "17:00", close: "03:00" }],
];

export const BADGES = [
  "Hygiene 5 stars",
  "Editor's pick",
  "Best new place",
  "Local favourite",
  "Vegan approved",
  "Late-night hero",
  "Family friendly award",
  "Zero waste kitchen",
];

export const FIRST_NAMES = [
  "Maria",
  "João",
  "Aisha",
  "Kenji",
  "Priya",
  "Lukas",
  "Sofia",
  "Mateo",
  "Amara",
  "Chen",
  "Olivia",
  "Ravi",
  "Yuki",
  "Hannah",
  "Diego",
  "Fatima",
  "Noah",
  "Zanele",
  "Emma",
  "Arjun",
  "Lea",
  "Omar",
  "Ines",
  "Kwame",
  "Mei",
  "Jonas",
  "Valentina",
  "Tariq",
  "Chloe",
  "Hiro",
  "Nadia",
  "Pedro",
  "Grace",
  "Ali",
  "Elif",
  "Samuel",
  "Ana",
  "Felix",
  "Leila",
  "Tomás",
];

export const LAST_NAMES = [
  "Silva",
  "Okafor",
  "Tanaka",
  "Sharma",
  "Müller",
  "Rossi",
  "García",
  "Mensah",
  "Wang",
  "Smith",
  "Patel",
  "Sato",
  "Schmidt",
  "López",
  "Hassan",
  "Brown",
  "Dlamini",
  "Martin",
  "Iyer",
  "Fischer",
  "Khan",
  "Costa",
  "Boateng",
  "Li",
  "Weber",
  "Romero",
  "Aziz",
  "Dubois",
  "Kato",
  "Novak",
];

/** Review titles by rating (1..5). */
export const REVIEW_TITLES: Record<number, string[]> = {
  1: ["Disappointing", "Not again", "Avoid", "Cold food, long wait"],
  2: ["Could be better", "Below expectations", "Meh", "Overpriced"],
  3: ["Decent", "Fine for a quick bite", "Average", "Good but not great"],
  4: ["Really good", "Lovely evening", "Solid choice", "Would come back"],
  5: ["Outstanding", "Best in town", "A hidden gem", "Perfect night out"],
};

/** Review sentences by mood; `{dish}` is replaced with one of the place's dishes. */
export const REVIEW_SENTENCES: Record<"good" | "mixed" | "bad", string[]> = {
  good: [
    "The {dish} was excellent.",
    "Friendly staff and quick service.",
    "Generous portions at a fair price.",
    "We booked a table for six and everything went smoothly.",
    "Try the {dish}, you will not regret it.",
    "Cosy atmosphere, great music.",
    "Everything tasted fresh.",
    "The owner came by to ask how we liked it.",
  ],
  mixed: [
    "The {dish} was good but a little salty.",
    "Service was slow on a busy evening.",
    "Nice place, a bit loud.",
    "Prices went up since last time.",
    "Small menu, but what they do they do well.",
    "Hard to find a table at lunch.",
  ],
  bad: [
    "The {dish} arrived cold.",
    "We waited almost an hour.",
    "The table was not clean.",
    "Staff seemed uninterested.",
    "Too expensive for what you get.",
    "The order was wrong twice.",
  ],
};

export const DESCRIPTION_PHRASES = [
  "A neighbourhood favourite",
  "Family-run since the nineties",
  "A small, lively spot",
  "A relaxed dining room",
  "A new kitchen with an open counter",
  "A busy place popular with locals",
];

export type GroceryBase = {
  title: string;
  alsoKnownAs?: string;
  categories: string[];
  units: string[];
  description: string;
};

/** Grocery products; the catalogue combines them with brands and variants. */
export const GROCERIES: GroceryBase[] = [
  {
    title: "Basmati rice",
    categories: ["grains", "pantry"],
    units: ["kg", "g"],
    description: "Long-grain aromatic rice.",
  },
  {
    title: "Brown rice",
    categories: ["grains", "pantry"],
    units: ["kg"],
    description: "Wholegrain rice with a nutty taste.",
  },
  {
    title: "Rolled oats",
    alsoKnownAs: "Porridge oats",
    categories: ["grains", "breakfast"],
    units: ["kg", "g"],
    description: "Oats for porridge and baking.",
  },
  { title: "Spaghetti", categories: ["pasta", "pantry"], units: ["g", "pack"], description: "Durum wheat pasta." },
  { title: "Penne", categories: ["pasta", "pantry"], units: ["g", "pack"], description: "Short tube pasta." },
  {
    title: "Red lentils",
    alsoKnownAs: "Masoor dal",
    categories: ["pulses", "pantry"],
    units: ["kg", "g"],
    description: "Split lentils that cook in minutes.",
  },
  {
    title: "Chickpeas",
    alsoKnownAs: "Garbanzo beans",
    categories: ["pulses", "pantry"],
    units: ["kg", "can"],
    description: "Dried or tinned chickpeas.",
  },
  { title: "Black beans", categories: ["pulses", "pantry"], units: ["kg", "can"], description: "Small black beans." },
  {
    title: "Plain flour",
    alsoKnownAs: "All-purpose flour",
    categories: ["baking", "pantry"],
    units: ["kg"],
    description: "Wheat flour for everyday baking.",
  },
  { title: "Cane sugar", categories: ["baking", "pantry"], units: ["kg"], description: "Golden unrefined sugar." },
  {
    title: "Olive oil",
    categories: ["oils", "pantry"],
    units: ["l", "ml", "bottle"],
    description: "Extra virgin, cold pressed.",
  },
  {
    title: "Sunflower oil",
    categories: ["oils", "pantry"],
    units: ["l", "bottle"],
    description: "Light oil for frying.",
  },
  { title: "Apple", categories: ["fruit", "fresh produce"], units: ["kg", "piece"], description: "Crisp and sweet." },
  {
    title: "Banana",
    categories: ["fruit", "fresh produce"],
    units: ["kg", "bunch"],
    description: "Ripe yellow bananas.",
  },
  { title: "Orange", categories: ["fruit", "fresh produce"], units: ["kg", "piece"], description: "Juicy citrus." },
  {
    title: "Mango",
    categories: ["fruit", "fresh produce"],
    units: ["piece", "kg"],
    description: "Sweet tropical fruit.",
  },
  { title: "Lemon", categories: ["fruit", "fresh produce"], units: ["piece", "kg"], description: "Unwaxed lemons." },
  {
    title: "Strawberries",
    categories: ["fruit", "fresh produce"],
    units: ["g", "pack"],
    description: "Sweet red berries.",
  },
  { title: "Avocado", categories: ["fruit", "fresh produce"], units: ["piece"], description: "Ready to eat." },
  {
    title: "Tomato",
    categories: ["vegetables", "fresh produce"],
    units: ["kg", "piece"],
    description: "Vine-ripened tomatoes.",
  },
  {
    title: "Cherry tomatoes",
    categories: ["vegetables", "fresh produce"],
    units: ["g", "pack"],
    description: "Small sweet tomatoes.",
  },
  {
    title: "Potato",
    categories: ["vegetables", "fresh produce"],
    units: ["kg"],
    description: "Floury potatoes for mash and chips.",
  },
  { title: "Onion", categories: ["vegetables", "fresh produce"], units: ["kg", "piece"], description: "Brown onions." },
  { title: "Garlic", categories: ["vegetables", "fresh produce"], units: ["piece", "g"], description: "Whole bulbs." },
  {
    title: "Carrot",
    categories: ["vegetables", "fresh produce"],
    units: ["kg", "bunch"],
    description: "Sweet crunchy carrots.",
  },
  {
    title: "Aubergine",
    alsoKnownAs: "Eggplant",
    categories: ["vegetables", "fresh produce"],
    units: ["piece", "kg"],
    description: "Glossy purple aubergines.",
  },
  {
    title: "Courgette",
    alsoKnownAs: "Zucchini",
    categories: ["vegetables", "fresh produce"],
    units: ["piece", "kg"],
    description: "Tender green courgettes.",
  },
  {
    title: "Spinach",
    categories: ["vegetables", "fresh produce"],
    units: ["g", "bunch"],
    description: "Baby leaf spinach.",
  },
  {
    title: "Coriander",
    alsoKnownAs: "Cilantro",
    categories: ["herbs", "fresh produce"],
    units: ["bunch"],
    description: "Fresh leaves and stems.",
  },
  { title: "Basil", categories: ["herbs", "fresh produce"], units: ["bunch", "g"], description: "Sweet basil." },
  { title: "Ginger", categories: ["vegetables", "spices"], units: ["g", "piece"], description: "Fresh root ginger." },
  {
    title: "Bell pepper",
    alsoKnownAs: "Capsicum",
    categories: ["vegetables", "fresh produce"],
    units: ["piece", "kg"],
    description: "Red, yellow or green.",
  },
  { title: "Whole milk", categories: ["dairy"], units: ["l", "bottle"], description: "Fresh pasteurised milk." },
  {
    title: "Oat milk",
    alsoKnownAs: "Oat drink",
    categories: ["dairy alternatives", "beverages"],
    units: ["l"],
    description: "Plant-based milk.",
  },
  { title: "Greek yoghurt", categories: ["dairy"], units: ["g", "jar"], description: "Thick strained yoghurt." },
  { title: "Butter", categories: ["dairy"], units: ["g", "pack"], description: "Salted butter." },
  { title: "Cheddar cheese", categories: ["dairy", "cheese"], units: ["g", "pack"], description: "Mature cheddar." },
  { title: "Mozzarella", categories: ["dairy", "cheese"], units: ["g", "piece"], description: "Fresh mozzarella." },
  {
    title: "Paneer",
    alsoKnownAs: "Indian cottage cheese",
    categories: ["dairy", "cheese"],
    units: ["g", "pack"],
    description: "Firm fresh cheese.",
  },
  {
    title: "Free-range eggs",
    categories: ["eggs", "dairy"],
    units: ["dozen", "piece"],
    description: "Large eggs from free-range hens.",
  },
  {
    title: "Tofu",
    alsoKnownAs: "Bean curd",
    categories: ["plant protein"],
    units: ["g", "pack"],
    description: "Firm tofu.",
  },
  { title: "Chicken breast", categories: ["meat"], units: ["kg", "g"], description: "Skinless fillets." },
  {
    title: "Beef mince",
    alsoKnownAs: "Ground beef",
    categories: ["meat"],
    units: ["g", "kg"],
    description: "Lean minced beef.",
  },
  {
    title: "Salmon fillet",
    categories: ["fish & seafood"],
    units: ["g", "piece"],
    description: "Fresh Atlantic salmon.",
  },
  {
    title: "Prawns",
    alsoKnownAs: "Shrimp",
    categories: ["fish & seafood", "frozen"],
    units: ["g", "pack"],
    description: "Peeled king prawns.",
  },
  { title: "Sourdough bread", categories: ["bakery"], units: ["loaf", "piece"], description: "Slow-fermented loaf." },
  { title: "Tortillas", categories: ["bakery"], units: ["pack"], description: "Soft wheat tortillas." },
  {
    title: "Croissant",
    categories: ["bakery", "breakfast"],
    units: ["piece", "pack"],
    description: "Butter croissants.",
  },
  {
    title: "Ground cumin",
    alsoKnownAs: "Jeera",
    categories: ["spices", "pantry"],
    units: ["g", "jar"],
    description: "Warm earthy spice.",
  },
  {
    title: "Turmeric",
    alsoKnownAs: "Haldi",
    categories: ["spices", "pantry"],
    units: ["g", "jar"],
    description: "Ground turmeric root.",
  },
  { title: "Black pepper", categories: ["spices", "pantry"], units: ["g", "jar"], description: "Whole peppercorns." },
  { title: "Sea salt", categories: ["spices", "pantry"], units: ["g", "kg"], description: "Flaky sea salt." },
  { title: "Soy sauce", categories: ["sauces", "pantry"], units: ["ml", "bottle"], description: "Naturally brewed." },
  {
    title: "Tomato passata",
    categories: ["sauces", "pantry"],
    units: ["g", "jar", "bottle"],
    description: "Sieved tomatoes.",
  },
  {
    title: "Peanut butter",
    categories: ["spreads", "pantry"],
    units: ["g", "jar"],
    description: "Crunchy, no added sugar.",
  },
  { title: "Honey", categories: ["spreads", "pantry"], units: ["g", "jar"], description: "Wildflower honey." },
  { title: "Ground coffee", categories: ["beverages"], units: ["g", "pack"], description: "Medium roast." },
  { title: "Green tea", categories: ["beverages"], units: ["pack", "g"], description: "Loose-leaf green tea." },
  { title: "Sparkling water", categories: ["beverages"], units: ["l", "bottle"], description: "Naturally carbonated." },
  { title: "Orange juice", categories: ["beverages"], units: ["l", "bottle"], description: "Not from concentrate." },
  { title: "Dark chocolate", categories: ["snacks", "sweets"], units: ["g", "piece"], description: "70% cocoa." },
  { title: "Salted peanuts", categories: ["snacks"], units: ["g", "pack"], description: "Roasted and salted." },
  {
    title: "Frozen peas",
    categories: ["frozen", "vegetables"],
    units: ["g", "pack"],
    description: "Sweet garden peas.",
  },
  {
    title: "Vanilla ice cream",
    categories: ["frozen", "sweets"],
    units: ["l", "ml"],
    description: "Made with real vanilla.",
  },
  {
    title: "Washing-up liquid",
    alsoKnownAs: "Dish soap",
    categories: ["household"],
    units: ["ml", "bottle"],
    description: "Gentle on hands.",
  },
  { title: "Toilet paper", categories: ["household"], units: ["pack"], description: "Three-ply rolls." },
  { title: "Nappies", alsoKnownAs: "Diapers", categories: ["baby"], units: ["pack"], description: "Size 3." },
  { title: "Toothpaste", categories: ["personal care"], units: ["ml", "piece"], description: "Fluoride toothpaste." },
];

/** Prefixes that turn a product into a catalogue item (brands and variants). */
export const GROCERY_VARIANTS = [
  "",
  "Organic",
  "Green Valley",
  "Sunfield",
  "Nonna's",
  "Everyday",
  "Fairtrade",
  "Harvest Moon",
  "Little Farm",
  "Premium",
  "Value",
  "Blue Coast",
  "Mountain",
  "Golden Fields",
  "Homestyle",
  "Wild Meadow",
];

/** Pack sizes appended to titles, by unit. */
export const PACK_SIZES: Record<string, string[]> = {
  kg: ["500 g", "1 kg", "2 kg", "5 kg"],
  g: ["100 g", "250 g", "400 g"],
  l: ["1 l", "1.5 l", "2 l"],
  ml: ["250 ml", "500 ml", "750 ml"],
  piece: ["single", "pack of 4", "pack of 6"],
  pack: ["family pack", "twin pack", "multipack"],
  bunch: ["large bunch", "small bunch"],
  dozen: ["6 pack", "12 pack"],
  can: ["400 g can", "pack of 4 cans"],
  jar: ["small jar", "large jar"],
  bottle: ["500 ml bottle", "1 l bottle"],
  loaf: ["800 g loaf", "half loaf"],
};
