import { IMAGE_PRIORITY } from '../../listings/gallery/image-priority';
import { stalledJobSettings } from '../../platform/queues/stalled-jobs';
import { imageJobOptions, imageQueueOptions } from './image-queue';

describe('imageJobOptions', () => {
  it('gives a single request’s image a higher Bull priority (a lower number) than a bulk one’s', () => {
    const single = imageJobOptions('a', IMAGE_PRIORITY.request).priority!;
    const bulk = imageJobOptions('b', IMAGE_PRIORITY.bulk).priority!;
    expect(single).toBeLessThan(bulk);
    // 0 would mean no priority to Bull: such a job goes behind every prioritised one.
    expect(single).toBeGreaterThanOrEqual(1);
  });

  it('names the job by the image, so a second hand-over of a queued image adds nothing', () => {
    expect(imageJobOptions('img-1', IMAGE_PRIORITY.bulk)).toMatchObject({
      jobId: 'img-1',
      removeOnComplete: true,
      removeOnFail: true,
    });
  });
});

describe('imageQueueOptions', () => {
  it('frees a dead worker’s job within its image’s lease, so the hand-over after the lease is not ignored', () => {
    expect(imageQueueOptions(3_000).settings).toMatchObject(stalledJobSettings(3_000));
  });

  it('keeps Bull’s 30 s lock under a longer lease: Bull runs the stalled job again before the lease ends', () => {
    expect(imageQueueOptions(5 * 60_000).settings).toMatchObject(stalledJobSettings(30_000));
  });
});
