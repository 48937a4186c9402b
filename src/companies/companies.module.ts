import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DartModule } from '../upstream/dart/dart.module';
import { CompaniesController } from './companies.controller';
import { CompaniesService } from './companies.service';
import { CompaniesRepository } from './companies.repository';
import { CompanyEntity } from './company.entity';

@Module({
  imports: [TypeOrmModule.forFeature([CompanyEntity]), DartModule],
  controllers: [CompaniesController],
  providers: [CompaniesRepository, CompaniesService],
})
export class CompaniesModule {}
