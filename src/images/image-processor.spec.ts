import type { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { ImageProcessor } from './image-processor';

describe('ImageProcessor', () => {
  it('decodes at most IMAGE_DECODE_CONCURRENCY uploads at once; the others wait their turn', async () => {
    const config = { get: () => 2 } as unknown as ConfigService<AllConfig, true>;
    const processor = new ImageProcessor(config);
    let active = 0;
    let most = 0;
    const finished: number[] = [];
    // Stands in for sharp: what is under test is how many decodes overlap, not decoding.
    jest
      .spyOn(processor as unknown as { reencode: () => Promise<unknown> }, 'reencode')
      .mockImplementation(async () => {
        active++;
        most = Math.max(most, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        return {};
      });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        processor.process(Buffer.from('x'), 'file').then(() => finished.push(i)),
      ),
    );
    expect(most).toBe(2);
    expect(finished).toHaveLength(6);
  });
});
