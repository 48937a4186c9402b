import { Module } from '@nestjs/common';
import { DartModule } from '../upstream/dart/dart.module';
import { CompaniesController } from './companies.controller';
import { CompaniesService } from './companies.service';
import { CompanyStore } from './company-store';

@Module({
  imports: [DartModule],
  controllers: [CompaniesController],
  providers: [CompanyStore, CompaniesService],
})
export class CompaniesModule {}
