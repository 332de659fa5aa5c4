import { Global, Module } from '@nestjs/common';
import { ApiLoad } from './api-load';

/** The API's request rate, shared between its instances and the workers (see ApiLoad). */
@Global()
@Module({ providers: [ApiLoad], exports: [ApiLoad] })
export class ApiLoadModule {}
