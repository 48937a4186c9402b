import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DartModule } from '../upstream/dart/dart.module';
import { CompaniesController } from './companies.controller';
import { CompaniesService } from './companies.service';
import { CompanyStore } from './company-store';
import { CompanyEntity } from './company.entity';

@Module({
  imports: [TypeOrmModule.forFeature([CompanyEntity]), DartModule],
  controllers: [CompaniesController],
  providers: [CompanyStore, CompaniesService],
})
export class CompaniesModule {}
