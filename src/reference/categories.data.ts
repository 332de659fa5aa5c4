export type AttributeType = 'string' | 'integer' | 'boolean' | 'enum';

export interface AttributeDefinition {
  /** camelCase key used in a listing's `attributes` object */
  key: string;
  /** Swedish display label */
  label: string;
  type: AttributeType;
  required: boolean;
  /** allowed values, only for type 'enum' (lowercase slugs, e.g. 'petrol') */
  values?: readonly string[];
  /** inclusive bounds, only for type 'integer' */
  min?: number;
  max?: number;
  /** only for type 'string' */
  maxLength?: number;
  /** unit for display, e.g. 'km', 'm2', 'kr' */
  unit?: string;
}

export interface CategoryDefinition {
  slug: string;
  /** Swedish display name */
  name: string;
  /** sub-categories; a category without children is a leaf */
  children?: readonly CategoryDefinition[];
  /** only on leaves */
  attributes?: readonly AttributeDefinition[];
}

export const CATEGORY_TREE: readonly CategoryDefinition[] = [
  {
    slug: 'vehicles',
    name: 'Fordon',
    children: [
      {
        slug: 'cars',
        name: 'Bilar',
        attributes: [
          {
            key: 'make',
            label: 'Märke',
            type: 'enum',
            required: true,
            values: [
              'audi',
              'bmw',
              'citroen',
              'cupra',
              'dacia',
              'ford',
              'honda',
              'hyundai',
              'kia',
              'mazda',
              'mercedes-benz',
              'mg',
              'mitsubishi',
              'nissan',
              'opel',
              'peugeot',
              'polestar',
              'porsche',
              'renault',
              'saab',
              'seat',
              'skoda',
              'tesla',
              'toyota',
              'volkswagen',
              'volvo',
              'other',
            ],
          },
          { key: 'model', label: 'Modell', type: 'string', required: true, maxLength: 60 },
          {
            key: 'modelYear',
            label: 'Modellår',
            type: 'integer',
            required: true,
            min: 1900,
            max: 2027,
          },
          {
            key: 'mileageKm',
            label: 'Miltal',
            type: 'integer',
            required: true,
            min: 0,
            max: 2000000,
            unit: 'km',
          },
          {
            key: 'fuel',
            label: 'Drivmedel',
            type: 'enum',
            required: true,
            values: ['petrol', 'diesel', 'electric', 'hybrid', 'plug-in-hybrid', 'ethanol', 'gas'],
          },
          {
            key: 'gearbox',
            label: 'Växellåda',
            type: 'enum',
            required: true,
            values: ['manual', 'automatic'],
          },
          { key: 'color', label: 'Färg', type: 'string', required: false, maxLength: 40 },
          {
            key: 'horsepower',
            label: 'Hästkrafter',
            type: 'integer',
            required: false,
            min: 1,
            max: 2000,
            unit: 'hk',
          },
        ],
      },
      {
        slug: 'motorcycles',
        name: 'Motorcyklar',
        attributes: [
          {
            key: 'make',
            label: 'Märke',
            type: 'enum',
            required: true,
            values: [
              'aprilia',
              'bmw',
              'ducati',
              'harley-davidson',
              'honda',
              'husqvarna',
              'kawasaki',
              'ktm',
              'suzuki',
              'triumph',
              'yamaha',
              'other',
            ],
          },
          {
            key: 'modelYear',
            label: 'Modellår',
            type: 'integer',
            required: true,
            min: 1900,
            max: 2027,
          },
          {
            key: 'mileageKm',
            label: 'Miltal',
            type: 'integer',
            required: true,
            min: 0,
            max: 1000000,
            unit: 'km',
          },
          {
            key: 'engineCc',
            label: 'Motorvolym',
            type: 'integer',
            required: false,
            min: 50,
            max: 3000,
            unit: 'cc',
          },
        ],
      },
      {
        slug: 'mopeds',
        name: 'Mopeder & A-traktorer',
        attributes: [
          {
            key: 'mopedClass',
            label: 'Klass',
            type: 'enum',
            required: true,
            values: ['class-1', 'class-2', 'a-tractor'],
          },
          {
            key: 'modelYear',
            label: 'Modellår',
            type: 'integer',
            required: false,
            min: 1900,
            max: 2027,
          },
        ],
      },
      {
        slug: 'boats',
        name: 'Båtar',
        attributes: [
          {
            key: 'boatType',
            label: 'Båttyp',
            type: 'enum',
            required: true,
            values: ['motorboat', 'sailboat', 'rib', 'canoe-kayak', 'other'],
          },
          {
            key: 'lengthCm',
            label: 'Längd',
            type: 'integer',
            required: false,
            min: 100,
            max: 10000,
            unit: 'cm',
          },
          {
            key: 'modelYear',
            label: 'Modellår',
            type: 'integer',
            required: false,
            min: 1900,
            max: 2027,
          },
        ],
      },
      {
        slug: 'caravans-motorhomes',
        name: 'Husvagnar & husbilar',
        attributes: [
          {
            key: 'caravanType',
            label: 'Typ',
            type: 'enum',
            required: true,
            values: ['caravan', 'motorhome'],
          },
          {
            key: 'modelYear',
            label: 'Modellår',
            type: 'integer',
            required: true,
            min: 1900,
            max: 2027,
          },
          { key: 'berths', label: 'Bäddar', type: 'integer', required: false, min: 1, max: 12 },
        ],
      },
      {
        slug: 'vehicle-parts',
        name: 'Reservdelar & tillbehör',
        attributes: [
          {
            key: 'vehicleType',
            label: 'Passar till',
            type: 'enum',
            required: false,
            values: ['car', 'motorcycle', 'boat', 'other'],
          },
        ],
      },
    ],
  },
  {
    slug: 'housing',
    name: 'Bostad',
    children: [
      {
        slug: 'apartments',
        name: 'Lägenheter',
        attributes: [
          { key: 'rooms', label: 'Antal rum', type: 'integer', required: true, min: 1, max: 20 },
          {
            key: 'livingAreaM2',
            label: 'Boarea',
            type: 'integer',
            required: true,
            min: 1,
            max: 1000,
            unit: 'm2',
          },
          { key: 'floor', label: 'Våning', type: 'integer', required: false, min: -2, max: 100 },
          {
            key: 'monthlyFee',
            label: 'Månadsavgift',
            type: 'integer',
            required: false,
            min: 0,
            max: 100000,
            unit: 'kr',
          },
          {
            key: 'tenure',
            label: 'Upplåtelseform',
            type: 'enum',
            required: true,
            values: ['rental', 'condominium', 'owned'],
          },
          { key: 'balcony', label: 'Balkong', type: 'boolean', required: false },
          { key: 'elevator', label: 'Hiss', type: 'boolean', required: false },
        ],
      },
      {
        slug: 'houses',
        name: 'Villor & radhus',
        attributes: [
          {
            key: 'houseType',
            label: 'Hustyp',
            type: 'enum',
            required: true,
            values: ['detached', 'semi-detached', 'terraced', 'farm'],
          },
          { key: 'rooms', label: 'Antal rum', type: 'integer', required: true, min: 1, max: 30 },
          {
            key: 'livingAreaM2',
            label: 'Boarea',
            type: 'integer',
            required: true,
            min: 1,
            max: 2000,
            unit: 'm2',
          },
          {
            key: 'plotAreaM2',
            label: 'Tomtarea',
            type: 'integer',
            required: false,
            min: 1,
            max: 1000000,
            unit: 'm2',
          },
          {
            key: 'buildYear',
            label: 'Byggår',
            type: 'integer',
            required: false,
            min: 1600,
            max: 2027,
          },
        ],
      },
      {
        slug: 'holiday-homes',
        name: 'Fritidshus',
        attributes: [
          { key: 'rooms', label: 'Antal rum', type: 'integer', required: true, min: 1, max: 20 },
          {
            key: 'livingAreaM2',
            label: 'Boarea',
            type: 'integer',
            required: true,
            min: 1,
            max: 1000,
            unit: 'm2',
          },
          {
            key: 'plotAreaM2',
            label: 'Tomtarea',
            type: 'integer',
            required: false,
            min: 1,
            max: 1000000,
            unit: 'm2',
          },
        ],
      },
      {
        slug: 'plots',
        name: 'Tomter & mark',
        attributes: [
          {
            key: 'plotAreaM2',
            label: 'Tomtarea',
            type: 'integer',
            required: true,
            min: 1,
            max: 10000000,
            unit: 'm2',
          },
          { key: 'buildingPermit', label: 'Bygglov finns', type: 'boolean', required: false },
        ],
      },
      { slug: 'parking-storage', name: 'Garage & förråd', attributes: [] },
    ],
  },
  {
    slug: 'electronics',
    name: 'Elektronik',
    children: [
      {
        slug: 'mobile-phones',
        name: 'Mobiltelefoner',
        attributes: [
          {
            key: 'brand',
            label: 'Märke',
            type: 'enum',
            required: true,
            values: [
              'apple',
              'samsung',
              'google',
              'oneplus',
              'xiaomi',
              'sony',
              'motorola',
              'nokia',
              'doro',
              'other',
            ],
          },
          { key: 'model', label: 'Modell', type: 'string', required: false, maxLength: 60 },
          {
            key: 'storageGb',
            label: 'Lagring',
            type: 'integer',
            required: false,
            min: 1,
            max: 4096,
            unit: 'GB',
          },
        ],
      },
      {
        slug: 'computers',
        name: 'Datorer',
        attributes: [
          {
            key: 'computerType',
            label: 'Typ',
            type: 'enum',
            required: true,
            values: ['laptop', 'desktop'],
          },
          {
            key: 'brand',
            label: 'Märke',
            type: 'enum',
            required: true,
            values: [
              'apple',
              'lenovo',
              'hp',
              'dell',
              'asus',
              'acer',
              'microsoft',
              'msi',
              'samsung',
              'other',
            ],
          },
          {
            key: 'ramGb',
            label: 'RAM-minne',
            type: 'integer',
            required: false,
            min: 1,
            max: 1024,
            unit: 'GB',
          },
          {
            key: 'storageGb',
            label: 'Lagring',
            type: 'integer',
            required: false,
            min: 1,
            max: 65536,
            unit: 'GB',
          },
        ],
      },
      {
        slug: 'tablets',
        name: 'Surfplattor',
        attributes: [
          {
            key: 'brand',
            label: 'Märke',
            type: 'enum',
            required: true,
            values: ['apple', 'samsung', 'lenovo', 'other'],
          },
          {
            key: 'storageGb',
            label: 'Lagring',
            type: 'integer',
            required: false,
            min: 1,
            max: 4096,
            unit: 'GB',
          },
        ],
      },
      {
        slug: 'tv-audio',
        name: 'TV & ljud',
        attributes: [
          {
            key: 'productType',
            label: 'Produkttyp',
            type: 'enum',
            required: true,
            values: ['tv', 'speakers', 'headphones', 'amplifier', 'other'],
          },
          {
            key: 'screenSizeInches',
            label: 'Skärmstorlek',
            type: 'integer',
            required: false,
            min: 10,
            max: 120,
            unit: 'tum',
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'cameras',
        name: 'Kameror & foto',
        attributes: [
          {
            key: 'cameraType',
            label: 'Typ',
            type: 'enum',
            required: true,
            values: ['dslr', 'mirrorless', 'compact', 'action', 'lens', 'other'],
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'video-games',
        name: 'Spel & konsoler',
        attributes: [
          {
            key: 'platform',
            label: 'Plattform',
            type: 'enum',
            required: true,
            values: ['playstation', 'xbox', 'nintendo', 'pc', 'other'],
          },
        ],
      },
    ],
  },
  {
    slug: 'home',
    name: 'Hem & trädgård',
    children: [
      {
        slug: 'furniture',
        name: 'Möbler',
        children: [
          { slug: 'sofas-armchairs', name: 'Soffor & fåtöljer', attributes: [] },
          { slug: 'tables-chairs', name: 'Bord & stolar', attributes: [] },
          { slug: 'beds-mattresses', name: 'Sängar & madrasser', attributes: [] },
          { slug: 'storage-furniture', name: 'Förvaring', attributes: [] },
        ],
      },
      {
        slug: 'appliances',
        name: 'Vitvaror',
        attributes: [
          {
            key: 'applianceType',
            label: 'Typ',
            type: 'enum',
            required: true,
            values: [
              'fridge',
              'freezer',
              'dishwasher',
              'washing-machine',
              'dryer',
              'stove-oven',
              'microwave',
              'other',
            ],
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      { slug: 'home-decor', name: 'Inredning & belysning', attributes: [] },
      { slug: 'kitchenware', name: 'Husgeråd', attributes: [] },
      { slug: 'garden', name: 'Trädgård', attributes: [] },
      {
        slug: 'tools',
        name: 'Verktyg',
        attributes: [
          {
            key: 'powerSource',
            label: 'Drivning',
            type: 'enum',
            required: false,
            values: ['corded', 'battery', 'petrol', 'manual'],
          },
        ],
      },
    ],
  },
  {
    slug: 'leisure',
    name: 'Fritid & hobby',
    children: [
      {
        slug: 'bicycles',
        name: 'Cyklar',
        attributes: [
          {
            key: 'bicycleType',
            label: 'Cykeltyp',
            type: 'enum',
            required: true,
            values: [
              'city',
              'road',
              'mountain',
              'hybrid',
              'electric',
              'cargo',
              'children',
              'other',
            ],
          },
          {
            key: 'frameSizeCm',
            label: 'Ramstorlek',
            type: 'integer',
            required: false,
            min: 20,
            max: 70,
            unit: 'cm',
          },
        ],
      },
      { slug: 'sports-equipment', name: 'Sportutrustning', attributes: [] },
      { slug: 'hunting-fishing', name: 'Jakt & fiske', attributes: [] },
      {
        slug: 'musical-instruments',
        name: 'Musikinstrument',
        attributes: [
          {
            key: 'instrumentType',
            label: 'Instrument',
            type: 'enum',
            required: true,
            values: ['guitar', 'bass', 'piano-keyboard', 'drums', 'wind', 'strings', 'other'],
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'books',
        name: 'Böcker',
        attributes: [
          { key: 'author', label: 'Författare', type: 'string', required: false, maxLength: 100 },
        ],
      },
      { slug: 'collectibles', name: 'Samlarobjekt', attributes: [] },
      { slug: 'toys', name: 'Leksaker', attributes: [] },
    ],
  },
  {
    slug: 'fashion',
    name: 'Kläder & accessoarer',
    children: [
      {
        slug: 'clothing',
        name: 'Kläder',
        attributes: [
          {
            key: 'gender',
            label: 'Kön',
            type: 'enum',
            required: true,
            values: ['women', 'men', 'unisex', 'children'],
          },
          { key: 'size', label: 'Storlek', type: 'string', required: true, maxLength: 20 },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'shoes',
        name: 'Skor',
        attributes: [
          {
            key: 'gender',
            label: 'Kön',
            type: 'enum',
            required: true,
            values: ['women', 'men', 'unisex', 'children'],
          },
          {
            key: 'shoeSize',
            label: 'Storlek (EU)',
            type: 'integer',
            required: true,
            min: 15,
            max: 52,
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'bags',
        name: 'Väskor',
        attributes: [
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'watches-jewelry',
        name: 'Klockor & smycken',
        attributes: [
          {
            key: 'itemType',
            label: 'Typ',
            type: 'enum',
            required: true,
            values: ['watch', 'ring', 'necklace', 'bracelet', 'earrings', 'other'],
          },
          { key: 'brand', label: 'Märke', type: 'string', required: false, maxLength: 60 },
        ],
      },
      {
        slug: 'accessories',
        name: 'Accessoarer',
        attributes: [
          {
            key: 'gender',
            label: 'Kön',
            type: 'enum',
            required: false,
            values: ['women', 'men', 'unisex', 'children'],
          },
        ],
      },
    ],
  },
  {
    slug: 'business',
    name: 'Företag & verksamhet',
    children: [
      {
        slug: 'businesses-for-sale',
        name: 'Företag till salu',
        attributes: [
          { key: 'industry', label: 'Bransch', type: 'string', required: false, maxLength: 60 },
          {
            key: 'annualRevenue',
            label: 'Årsomsättning',
            type: 'integer',
            required: false,
            min: 0,
            max: 1000000000,
            unit: 'kr',
          },
        ],
      },
      {
        slug: 'commercial-premises',
        name: 'Lokaler',
        attributes: [
          {
            key: 'premisesType',
            label: 'Lokaltyp',
            type: 'enum',
            required: true,
            values: ['office', 'retail', 'warehouse', 'industrial', 'restaurant', 'other'],
          },
          {
            key: 'areaM2',
            label: 'Yta',
            type: 'integer',
            required: true,
            min: 1,
            max: 100000,
            unit: 'm2',
          },
          {
            key: 'monthlyRent',
            label: 'Månadshyra',
            type: 'integer',
            required: false,
            min: 0,
            max: 10000000,
            unit: 'kr',
          },
        ],
      },
      { slug: 'office-equipment', name: 'Kontors- & butiksinredning', attributes: [] },
      {
        slug: 'industrial-machinery',
        name: 'Maskiner & industri',
        attributes: [
          {
            key: 'modelYear',
            label: 'Årsmodell',
            type: 'integer',
            required: false,
            min: 1900,
            max: 2027,
          },
          {
            key: 'operatingHours',
            label: 'Drifttimmar',
            type: 'integer',
            required: false,
            min: 0,
            max: 200000,
            unit: 'h',
          },
        ],
      },
      {
        slug: 'agricultural-machinery',
        name: 'Lantbruksmaskiner',
        attributes: [
          {
            key: 'modelYear',
            label: 'Årsmodell',
            type: 'integer',
            required: false,
            min: 1900,
            max: 2027,
          },
          {
            key: 'operatingHours',
            label: 'Drifttimmar',
            type: 'integer',
            required: false,
            min: 0,
            max: 200000,
            unit: 'h',
          },
        ],
      },
      { slug: 'business-services', name: 'Tjänster', attributes: [] },
    ],
  },
  {
    slug: 'jobs',
    name: 'Jobb',
    children: [
      {
        slug: 'it-jobs',
        name: 'IT & data',
        attributes: [
          {
            key: 'employmentType',
            label: 'Anställningsform',
            type: 'enum',
            required: true,
            values: ['full-time', 'part-time', 'temporary', 'internship', 'freelance'],
          },
          { key: 'remote', label: 'Distansarbete', type: 'boolean', required: false },
        ],
      },
      {
        slug: 'healthcare-jobs',
        name: 'Vård & omsorg',
        attributes: [
          {
            key: 'employmentType',
            label: 'Anställningsform',
            type: 'enum',
            required: true,
            values: ['full-time', 'part-time', 'temporary', 'internship', 'freelance'],
          },
          { key: 'remote', label: 'Distansarbete', type: 'boolean', required: false },
        ],
      },
      {
        slug: 'sales-retail-jobs',
        name: 'Försäljning & butik',
        attributes: [
          {
            key: 'employmentType',
            label: 'Anställningsform',
            type: 'enum',
            required: true,
            values: ['full-time', 'part-time', 'temporary', 'internship', 'freelance'],
          },
          { key: 'remote', label: 'Distansarbete', type: 'boolean', required: false },
        ],
      },
      {
        slug: 'construction-jobs',
        name: 'Bygg & hantverk',
        attributes: [
          {
            key: 'employmentType',
            label: 'Anställningsform',
            type: 'enum',
            required: true,
            values: ['full-time', 'part-time', 'temporary', 'internship', 'freelance'],
          },
          { key: 'remote', label: 'Distansarbete', type: 'boolean', required: false },
        ],
      },
      {
        slug: 'other-jobs',
        name: 'Övriga jobb',
        attributes: [
          {
            key: 'employmentType',
            label: 'Anställningsform',
            type: 'enum',
            required: true,
            values: ['full-time', 'part-time', 'temporary', 'internship', 'freelance'],
          },
          { key: 'remote', label: 'Distansarbete', type: 'boolean', required: false },
        ],
      },
    ],
  },
];
