import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config';
import { dataSourceOptions } from './data-source-options';

/** For the TypeORM CLI (migration:generate / migration:create). */
export default new DataSource(dataSourceOptions(databaseConfig()));
