import { IMAGE_PRIORITY } from '../../listings/gallery/image-priority';
import { imageJobOptions } from './image-queue';

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
