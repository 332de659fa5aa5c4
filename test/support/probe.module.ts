import { Controller, Delete, Get, Module, Patch, Post, Put } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { UuidParam } from '../../src/common/http/uuid-param.decorator';

/**
 * Stand-in routes for the limiter and usage tests, behind the real guards, pipes and filter: any
 * valid key may call them. They keep those tests independent of the features that own real writes.
 * Outside the OpenAPI document, which names every route it lists.
 */
@ApiExcludeController()
@Controller('probe')
class ProbeController {
  @Get(':id')
  read(@UuidParam('id') id: string) {
    return { id };
  }

  @Post()
  create() {
    return { created: true };
  }

  @Patch(':id')
  update(@UuidParam('id') id: string) {
    return { id };
  }

  @Put(':id')
  replace(@UuidParam('id') id: string) {
    return { id };
  }

  @Delete(':id')
  remove(@UuidParam('id') id: string) {
    return { id };
  }

  @Get('errors/unexpected')
  fail(): never {
    throw new Error('probe failure');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
