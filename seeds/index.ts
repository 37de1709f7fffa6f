/** What the app and tools use from the seeds. */
export { type DemoPersona, demoDataset, demoPersonas } from './demo.js';
export { type DemoMedia, demoMedia } from './demo-media.js';
export type { Dataset, DatasetInput } from './format.js';
export { datasetSchema } from './format.js';
export { type LoadCounts, loadDataset } from './load.js';
export { InvalidDatasetError, type Validation, validateDataset } from './validate.js';
