import { Foundation1763780000000 } from './1763780000000-Foundation';
import { Listings1763785000000 } from './1763785000000-Listings';
import { Usage1763790000000 } from './1763790000000-Usage';
import { Webhooks1763795000000 } from './1763795000000-Webhooks';
import { OutboxFanout1763800000000 } from './1763800000000-OutboxFanout';
import { SqlFunctions1763805000000 } from './1763805000000-SqlFunctions';
import { WebhookEndpointModes1763900000000 } from './1763900000000-WebhookEndpointModes';
import { WebhookDeliveryDisableRule1763901000000 } from './1763901000000-WebhookDeliveryDisableRule';
import { ListingUpdatedAtMilliseconds1763905000000 } from './1763905000000-ListingUpdatedAtMilliseconds';
import { EventsFeed1763920000000 } from './1763920000000-EventsFeed';
import { WebhookRecovery1763921000000 } from './1763921000000-WebhookRecovery';
import { MediaUrlReferences1763930000000 } from './1763930000000-MediaUrlReferences';
import { RenderedListings1763940000000 } from './1763940000000-RenderedListings';
import { OutboxPurgeIndex1763950000000 } from './1763950000000-OutboxPurgeIndex';
import { WebhookPreviousSecrets1763960000000 } from './1763960000000-WebhookPreviousSecrets';
import { Imports1764000000000 } from './1764000000000-Imports';
import { ImagePipeline1764100000000 } from './1764100000000-ImagePipeline';
import { ImportLineHashes1764200000000 } from './1764200000000-ImportLineHashes';
import { PendingRenditionKeys1764300000000 } from './1764300000000-PendingRenditionKeys';
import { StorageDeletions1764400000000 } from './1764400000000-StorageDeletions';
import { LineHashLookup1764500000000 } from './1764500000000-LineHashLookup';
import { ImportResultsWithoutForeignKey1764600000000 } from './1764600000000-ImportResultsWithoutForeignKey';
import { MirrorPlanningSnapshot1764700000000 } from './1764700000000-MirrorPlanningSnapshot';
import { IdempotentReplayKeyOrder1764800000000 } from './1764800000000-IdempotentReplayKeyOrder';
import { MirrorSnapshotAtAcceptance1764900000000 } from './1764900000000-MirrorSnapshotAtAcceptance';
import { LineHashRowTrigger1765000000000 } from './1765000000000-LineHashRowTrigger';

/** Listed explicitly so ts-node, Jest and the compiled build all load the same set. */
export const MIGRATIONS = [
  Foundation1763780000000,
  Listings1763785000000,
  Usage1763790000000,
  Webhooks1763795000000,
  OutboxFanout1763800000000,
  SqlFunctions1763805000000,
  WebhookEndpointModes1763900000000,
  WebhookDeliveryDisableRule1763901000000,
  ListingUpdatedAtMilliseconds1763905000000,
  EventsFeed1763920000000,
  WebhookRecovery1763921000000,
  MediaUrlReferences1763930000000,
  RenderedListings1763940000000,
  OutboxPurgeIndex1763950000000,
  WebhookPreviousSecrets1763960000000,
  Imports1764000000000,
  ImagePipeline1764100000000,
  ImportLineHashes1764200000000,
  PendingRenditionKeys1764300000000,
  StorageDeletions1764400000000,
  LineHashLookup1764500000000,
  ImportResultsWithoutForeignKey1764600000000,
  MirrorPlanningSnapshot1764700000000,
  IdempotentReplayKeyOrder1764800000000,
  MirrorSnapshotAtAcceptance1764900000000,
  LineHashRowTrigger1765000000000,
];
